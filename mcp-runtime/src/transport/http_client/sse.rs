//! Server-sent events, as much of the format as MCP uses: `data:` lines joined by newlines,
//! dispatched at a blank line; `id:` and `retry:` are kept for reconnecting; comments and
//! `event:` are skipped.

/// Feeds bytes in, takes complete events' data out.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    pending: Vec<u8>,
    data: Vec<String>,
    /// The last `id:` seen (sent back as `Last-Event-ID` on reconnection).
    pub last_event_id: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub retry_ms: Option<u64>,
}

impl SseParser {
    /// The data of every event completed by `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.pending.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                let data = self.data.join("\n");
                self.data.clear();
                // Priming events carry an id and no message.
                if !data.trim().is_empty() {
                    events.push(data);
                }
            } else if let Some(value) = line.strip_prefix("data:") {
                self.data
                    .push(value.strip_prefix(' ').unwrap_or(value).to_owned());
            } else if let Some(value) = line.strip_prefix("id:") {
                self.last_event_id = Some(value.trim_start().to_owned());
            } else if let Some(value) = line.strip_prefix("retry:") {
                self.retry_ms = value.trim().parse().ok();
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks_and_lines() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b": comment\nevent: message\nda").is_empty());
        assert_eq!(
            parser.feed(b"ta: {\"a\":1}\r\n\r\ndata: x\n"),
            ["{\"a\":1}"]
        );
        assert_eq!(parser.feed(b"data: y\n\n"), ["x\ny"]);
        parser.feed(b"id: e-7\nretry: 500\ndata:\n\n");
        assert_eq!(parser.last_event_id.as_deref(), Some("e-7"));
        assert_eq!(parser.retry_ms, Some(500));
    }
}
