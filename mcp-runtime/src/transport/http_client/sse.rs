//! Server-sent events, as much of the format as MCP uses: `data:` lines joined by newlines,
//! dispatched at a blank line; `id:` and `retry:` are kept for reconnecting; comments and
//! `event:` are skipped.

/// Feeds bytes in, takes complete events' data out. An event (or a line) longer than the
/// limit ends the stream: a server cannot make the client buffer without end.
#[derive(Debug)]
pub(crate) struct SseParser {
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no newline.
    scanned: usize,
    data: Vec<String>,
    data_len: usize,
    limit: usize,
    /// The last `id:` seen (sent back as `Last-Event-ID` on reconnection).
    pub last_event_id: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub retry_ms: Option<u64>,
}

/// An event or line past the parser's limit.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct EventTooLong {
    pub limit: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new(crate::server::DEFAULT_MAX_MESSAGE_SIZE)
    }
}

impl SseParser {
    /// A parser for events of at most `limit` bytes of data.
    pub fn new(limit: usize) -> Self {
        Self {
            pending: Vec::new(),
            scanned: 0,
            data: Vec::new(),
            data_len: 0,
            limit,
            last_event_id: None,
            retry_ms: None,
        }
    }

    /// The data of every event completed by `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<String>, EventTooLong> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(offset) = self.pending[start + self.scanned..]
            .iter()
            .position(|b| *b == b'\n')
        {
            let end = start + self.scanned + offset;
            self.scanned = 0;
            let mut line = &self.pending[start..end];
            start = end + 1;
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            if let Some(event) = self.on_line(&line)? {
                events.push(event);
            }
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        if self.pending.len() > self.limit {
            return Err(EventTooLong { limit: self.limit });
        }
        Ok(events)
    }

    fn on_line(&mut self, line: &str) -> Result<Option<String>, EventTooLong> {
        if line.is_empty() {
            let data = self.data.join("\n");
            self.data.clear();
            self.data_len = 0;
            // Priming events carry an id and no message.
            return Ok(Some(data).filter(|d| !d.trim().is_empty()));
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            self.data_len += value.len() + 1;
            if self.data_len > self.limit {
                return Err(EventTooLong { limit: self.limit });
            }
            self.data.push(value.to_owned());
        } else if let Some(value) = line.strip_prefix("id:") {
            self.last_event_id = Some(value.trim_start().to_owned());
        } else if let Some(value) = line.strip_prefix("retry:") {
            self.retry_ms = value.trim().parse().ok();
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(parser: &mut SseParser, bytes: &[u8]) -> Vec<String> {
        parser.feed(bytes).expect("within the limit")
    }

    #[test]
    fn events_split_across_chunks_and_lines() {
        let mut parser = SseParser::default();
        assert!(feed(&mut parser, b": comment\nevent: message\nda").is_empty());
        assert_eq!(
            feed(&mut parser, b"ta: {\"a\":1}\r\n\r\ndata: x\n"),
            ["{\"a\":1}"]
        );
        assert_eq!(feed(&mut parser, b"data: y\n\n"), ["x\ny"]);
        feed(&mut parser, b"id: e-7\nretry: 500\ndata:\n\n");
        assert_eq!(parser.last_event_id.as_deref(), Some("e-7"));
        assert_eq!(parser.retry_ms, Some(500));
    }

    #[test]
    fn a_line_or_an_event_past_the_limit_ends_the_stream() {
        let mut parser = SseParser::new(16);
        assert!(feed(&mut parser, b"data: 0123456789").is_empty());
        assert_eq!(parser.feed(b"abcdefgh"), Err(EventTooLong { limit: 16 }));
        let mut parser = SseParser::new(16);
        feed(&mut parser, b"data: 0123456789\n");
        assert_eq!(
            parser.feed(b"data: 0123456789\n"),
            Err(EventTooLong { limit: 16 })
        );
        let mut parser = SseParser::new(16);
        assert_eq!(
            feed(&mut parser, b"data: 0123456789\n\ndata: 0123456789\n\n").len(),
            2
        );
    }
}
