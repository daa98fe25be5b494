//! The stdio line framer on arbitrary bytes arriving in arbitrary pieces: the frames must be
//! exactly those of splitting the whole input at once, by a reference that shares no code with
//! the framer (lines end at `\n`, a trailing `\r` is dropped, a line longer than the limit is
//! `TooLong`, one that is not UTF-8 is `InvalidUtf8`, and an unterminated last line counts).

#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::__private::fuzzing::LineFramer;
use mcp_runtime::transport::{Frame, FrameError};

#[derive(Arbitrary, Debug)]
struct Input {
    /// Small, so that lines cross it often.
    limit: u8,
    /// Where the reads end, as offsets into `bytes` (taken modulo its length, then sorted).
    cuts: Vec<u16>,
    bytes: Vec<u8>,
}

fn reference(limit: usize, bytes: &[u8]) -> Vec<Frame> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    // What follows the last `\n` is a line only if the stream ended inside it.
    if lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            let message = line.strip_suffix(b"\r").unwrap_or(line);
            if message.len() > limit {
                Err(FrameError::TooLong { limit })
            } else {
                String::from_utf8(message.to_vec()).map_err(|_| FrameError::InvalidUtf8)
            }
        })
        .collect()
}

fuzz_target!(|input: Input| {
    let limit = usize::from(input.limit);
    let bytes = &input.bytes;
    let mut cuts: Vec<usize> = input
        .cuts
        .iter()
        .map(|&cut| usize::from(cut) % (bytes.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.push(bytes.len());

    let mut framer = LineFramer::new(limit);
    let mut frames = Vec::new();
    let mut start = 0;
    for cut in cuts {
        frames.extend(framer.push(&bytes[start..cut]));
        start = cut;
    }
    frames.extend(framer.finish());

    assert_eq!(frames, reference(limit, bytes));
});
