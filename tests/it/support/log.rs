//! A `tracing` subscriber of this thread only, writing into memory, so a test reads what was
//! logged. The tests share a process, so none may install a global one; a test that wants
//! the lines of tasks it spawns runs on a current-thread runtime.

use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing::subscriber::DefaultGuard;

/// What was logged on this thread since [`CapturedLog::start`], at INFO and above.
#[derive(Clone, Default)]
pub struct CapturedLog(Arc<Mutex<Vec<u8>>>);

impl Write for CapturedLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl CapturedLog {
    /// Starts capturing; capturing stops when the guard drops.
    pub fn start() -> (Self, DefaultGuard) {
        let log = Self::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        (log, tracing::subscriber::set_default(subscriber))
    }

    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("log lock")).into_owned()
    }

    /// Everything logged so far, which is forgotten.
    pub fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().expect("log lock"));
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
