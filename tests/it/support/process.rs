//! Child processes of the tests (the example binaries, the Python SDK) and where to find them.
//! Every child is held by a [`ChildGuard`]: the tests share one process, so a child left behind
//! by a failed assertion would outlive its test and hold its port until the whole run ends.

use std::net::TcpStream;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The project root (where `scripts/` and `.venv/` are).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python interpreter of `.venv` (with `mcp==2.3.0`), creating the venv on first use.
pub fn python() -> &'static PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let status = Command::new(root().join("scripts/python-venv.sh"))
            .status()
            .expect("run scripts/python-venv.sh");
        assert!(status.success(), "scripts/python-venv.sh failed");
        root().join(".venv/bin/python")
    })
}

/// An example binary: `cargo test` builds the examples next to the test binaries' directory.
pub fn example(name: &str) -> PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

/// Where the system program `name` is installed: on `PATH`, or in the directories Debian
/// packages put daemons in (`/usr/sbin` is not on every user's `PATH`).
pub fn installed(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>());
    on_path
        .chain(["/usr/bin", "/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A loopback port that nothing listens on: the kernel picks it for a socket closed at once.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A child process that is killed and reaped when the guard drops, whether the test passed or
/// panicked. Derefs to the [`Child`] for its pipes and id.
pub struct ChildGuard {
    child: Child,
    program: String,
}

impl ChildGuard {
    /// Starts `command`, failing the test with the program's name if it cannot start.
    pub fn spawn(command: &mut Command) -> Self {
        let program = command.get_program().to_string_lossy().into_owned();
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("start {program}: {e}"));
        Self { child, program }
    }

    /// Blocks until the child listens on `addr`. Fails at once if the child exits first, and
    /// after 20 s: a cold start of the Python SDK takes seconds on a loaded machine.
    pub fn wait_listening(&mut self, addr: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(addr).is_err() {
            if let Some(exit) = self.child.try_wait().expect("poll the child") {
                panic!(
                    "{} exited ({exit}) before listening on {addr}",
                    self.program
                );
            }
            assert!(
                Instant::now() < deadline,
                "{} did not listen on {addr} within 20 s",
                self.program
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the child to exit, failing the test if it is still running after `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(exit) = self.child.try_wait().expect("poll the child") {
                return exit;
            }
            assert!(
                Instant::now() < deadline,
                "{} still runs after {limit:?}",
                self.program
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Deref for ChildGuard {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.child
    }
}

impl DerefMut for ChildGuard {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Either fails only if the child is gone already, which is the point.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
