//! The bus of one process.

use tokio::sync::broadcast;

use super::{Change, NotificationBus};

/// How many changes a slow subscriber of a [`LocalBus`] may fall behind by before it loses
/// the oldest.
pub const LOCAL_BUS_CAPACITY: usize = 1024;

/// The in-process [`NotificationBus`]: changes reach the subscribers of this process only.
/// The default of every server.
#[derive(Debug, Clone)]
pub struct LocalBus {
    sender: broadcast::Sender<Change>,
}

impl LocalBus {
    /// A bus with no subscribers yet.
    pub fn new() -> Self {
        Self {
            sender: broadcast::channel(LOCAL_BUS_CAPACITY).0,
        }
    }
}

impl Default for LocalBus {
    fn default() -> Self {
        Self::new()
    }
}

impl NotificationBus for LocalBus {
    fn publish(&self, change: Change) {
        // No subscriber is not an error: nobody is listening yet.
        let _ = self.sender.send(change);
    }

    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.sender.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_subscriber_hears_every_change_in_order() {
        let bus = LocalBus::new();
        let (mut a, mut b) = (bus.subscribe(), bus.subscribe());
        bus.publish(Change::ToolsListChanged);
        bus.publish(Change::ResourceUpdated {
            uri: "x://1".into(),
        });
        for rx in [&mut a, &mut b] {
            assert_eq!(rx.recv().await.ok(), Some(Change::ToolsListChanged));
            assert_eq!(
                rx.recv().await.ok(),
                Some(Change::ResourceUpdated {
                    uri: "x://1".into()
                })
            );
        }
    }
}
