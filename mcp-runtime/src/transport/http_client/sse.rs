//! Server-sent events, as much of the format as MCP uses: `data:` lines joined by newlines,
//! dispatched at a blank line; comments, `event:`, `id:` and `retry:` are skipped.

/// Feeds bytes in, takes complete events' data out.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    pending: Vec<u8>,
    data: Vec<String>,
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
                if !self.data.is_empty() {
                    events.push(self.data.join("\n"));
                    self.data.clear();
                }
            } else if let Some(value) = line.strip_prefix("data:") {
                self.data
                    .push(value.strip_prefix(' ').unwrap_or(value).to_owned());
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
    }
}
