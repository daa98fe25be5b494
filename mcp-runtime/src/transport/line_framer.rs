//! Newline-delimited framing as a pure state machine: bytes in, messages out, wherever the
//! reads happened to end. Kept apart from the async reader so it can be tested and fuzzed
//! byte by byte.

use super::{Frame, FrameError};

/// Splits a byte stream into lines of at most `limit` bytes.
///
/// A line ends at `\n`; a `\r` before it is part of the ending, not of the message, and does
/// not count towards the limit. A longer line becomes [`FrameError::TooLong`] and its bytes are
/// dropped as they arrive, so a peer cannot make the reader buffer more than the limit.
#[derive(Debug)]
pub struct LineFramer {
    limit: usize,
    line: Vec<u8>,
    overflow: bool,
}

impl LineFramer {
    /// A framer for messages of at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            line: Vec::new(),
            overflow: false,
        }
    }

    /// The frames that `bytes` completes, in order. Bytes are taken as the iterator advances:
    /// it must be run to its end unless the reader is giving up.
    pub fn push<'a>(&'a mut self, mut bytes: &'a [u8]) -> impl Iterator<Item = Frame> + 'a {
        std::iter::from_fn(move || {
            let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
                self.append(bytes);
                bytes = &[];
                return None;
            };
            self.append(&bytes[..end]);
            bytes = &bytes[end + 1..];
            Some(self.complete())
        })
    }

    /// The last line, when the stream ended without a newline after it.
    pub fn finish(mut self) -> Option<Frame> {
        (self.overflow || !self.line.is_empty()).then(|| self.complete())
    }

    fn append(&mut self, bytes: &[u8]) {
        if self.overflow {
            return;
        }
        // One byte of slack for the `\r` of a CRLF ending, which is not known to be one yet.
        if self.line.len() + bytes.len() > self.limit.saturating_add(1) {
            self.overflow = true;
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(bytes);
        }
    }

    fn complete(&mut self) -> Frame {
        let mut line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.overflow) {
            return Err(FrameError::TooLong { limit: self.limit });
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.limit {
            return Err(FrameError::TooLong { limit: self.limit });
        }
        String::from_utf8(line).map_err(|_| FrameError::InvalidUtf8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of `input` pushed in pieces cut at `cuts`, then the end of the stream.
    fn frames(limit: usize, input: &[u8], cuts: &[usize]) -> Vec<Frame> {
        let mut framer = LineFramer::new(limit);
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain([&input.len()]) {
            out.extend(framer.push(&input[start..cut]));
            start = cut;
        }
        out.extend(framer.finish());
        out
    }

    fn ok(text: &str) -> Frame {
        Ok(text.to_owned())
    }

    const TOO_LONG: Frame = Err(FrameError::TooLong { limit: 4 });

    #[test]
    fn lines_end_at_newline_and_lose_a_carriage_return() {
        assert_eq!(
            frames(100, b"a\nbc\r\n\n\r\nd\re\n", &[]),
            [ok("a"), ok("bc"), ok(""), ok(""), ok("d\re")]
        );
    }

    #[test]
    fn where_the_reads_end_does_not_matter() {
        let input = b"one\r\ntwo\nthree";
        let whole = frames(100, input, &[]);
        for cut in 0..=input.len() {
            assert_eq!(frames(100, input, &[cut]), whole, "cut at {cut}");
        }
        let every_byte: Vec<usize> = (0..=input.len()).collect();
        assert_eq!(frames(100, input, &every_byte), whole);
    }

    #[test]
    fn a_last_line_without_newline_counts_like_any_other() {
        assert_eq!(frames(4, b"x\nabc\r", &[]), [ok("x"), ok("abc")]);
        assert_eq!(frames(4, b"x\nabcdef", &[3]), [ok("x"), TOO_LONG]);
        assert_eq!(frames(4, b"x\n", &[]), [ok("x")]);
        assert_eq!(frames(4, b"", &[]), []);
    }

    #[test]
    fn the_limit_counts_the_message_not_its_line_ending() {
        assert_eq!(
            frames(4, b"abcd\nabcd\r\nabcde\nabcd\r\r\n", &[2, 7]),
            [ok("abcd"), ok("abcd"), TOO_LONG, TOO_LONG]
        );
    }

    #[test]
    fn a_too_long_line_is_dropped_and_the_next_one_read() {
        let mut framer = LineFramer::new(4);
        assert_eq!(framer.push(b"abcdefgh").count(), 0);
        // Nothing of the long line is kept while the rest of it arrives.
        assert!(framer.line.is_empty());
        assert_eq!(
            framer.push(b"ij\nok\n").collect::<Vec<_>>(),
            [TOO_LONG, ok("ok")]
        );
    }

    #[test]
    fn invalid_utf8_is_reported_per_line() {
        assert_eq!(
            frames(100, b"\xff\n\xe6\x97\xa5\n\xe6\x97", &[3]),
            [
                Err(FrameError::InvalidUtf8),
                ok("日"),
                Err(FrameError::InvalidUtf8)
            ]
        );
    }

    #[test]
    fn a_limit_of_zero_admits_only_empty_lines() {
        let zero = Err(FrameError::TooLong { limit: 0 });
        assert_eq!(frames(0, b"\n\r\na\n", &[]), [ok(""), ok(""), zero]);
    }
}
