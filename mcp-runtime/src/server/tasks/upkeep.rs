//! What keeps a fleet's tasks honest: this instance renews the leases of the tasks it runs, and
//! fails those whose runner stopped renewing (another instance died); a store without leases
//! only forgets what expired.

use std::sync::Weak;
use std::time::Duration;

use tokio::time::MissedTickBehavior;

use super::TaskRuntime;
use crate::push::Change;

/// How often a store without leases is swept of expired tasks.
const SWEEP_WITHOUT_LEASE: Duration = Duration::from_secs(30);

/// Starts the loop; it ends when the server's runtime is dropped.
pub(super) fn spawn(runtime: Weak<TaskRuntime>, lease: Option<Duration>) {
    // Three renewals per lease: one lost or late still leaves the lease held.
    let every = lease.map_or(SWEEP_WITHOUT_LEASE, |lease| {
        (lease / 3).max(Duration::from_millis(10))
    });
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tick.tick().await;
            let Some(runtime) = runtime.upgrade() else {
                return;
            };
            runtime.upkeep_once().await;
        }
    });
}

impl TaskRuntime {
    async fn upkeep_once(&self) {
        let store = self.store();
        if store.lease().is_some() {
            let held: Vec<String> = self.running().keys().cloned().collect();
            if !held.is_empty() {
                match store.renew(&held).await {
                    Ok(lost) => {
                        for task_id in lost {
                            if let Some(stop) = self.running().get(&task_id) {
                                tracing::warn!(task = %task_id, "lost the lease on a task: its function stops");
                                stop.cancel();
                            }
                        }
                    }
                    Err(error) => tracing::warn!(%error, "could not renew the task leases"),
                }
            }
        }
        match store.sweep().await {
            Ok(failed) if !failed.is_empty() => {
                tracing::warn!(
                    count = failed.len(),
                    "failed the tasks of runners that stopped"
                );
                // Their runners are gone, so nobody else says it: the listens granted them,
                // on every instance, hear that they failed.
                if let Some(bus) = self.upkeep.get() {
                    for task_id in failed {
                        bus.publish(Change::TaskStatus { task_id });
                    }
                }
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "could not sweep the task store"),
        }
    }
}
