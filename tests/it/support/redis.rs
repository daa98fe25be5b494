//! A real `redis-server` (the Debian package) for the tests of the Redis bus: on a free
//! loopback port, persistence off, killed when its guard drops however the test ends.
//!
//! Missing `redis-server` skips a test, saying so, unless `CI` is set: then it fails.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::process::{ChildGuard, free_port, installed};

/// A running `redis-server`.
pub struct RedisServer {
    child: ChildGuard,
    port: u16,
}

impl RedisServer {
    /// Starts one on a free port; `None` (after saying why) when `redis-server` is not
    /// installed and `CI` is not set.
    pub fn start() -> Option<Self> {
        Self::start_on(free_port())
    }

    /// Starts one on `port`, as [`RedisServer::start`] does.
    pub fn start_on(port: u16) -> Option<Self> {
        let Some(binary) = installed("redis-server") else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but redis-server is not installed (apt-get install redis-server)"
            );
            eprintln!("SKIPPED: redis-server is not installed (apt-get install redis-server)");
            return None;
        };
        Some(Self::start_with(&binary, port))
    }

    fn start_with(binary: &PathBuf, port: u16) -> Self {
        let child = ChildGuard::spawn(
            Command::new(binary)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                // No working files where the tests run.
                .args(["--dir", &std::env::temp_dir().to_string_lossy()])
                .stdin(Stdio::null())
                .stdout(Stdio::null()),
        );
        let mut server = Self { child, port };
        server.wait_answering();
        server
    }

    /// Blocks until the server answers PING; fails if it exits first or takes over 10 s.
    fn wait_answering(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(exit)) = self.child.try_wait() {
                panic!("redis-server exited ({exit}) before answering");
            }
            if self.command(&["PING"]).is_ok_and(|reply| reply == "+PONG") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer on port {} within 10 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server, as a crash would, and waits until it is gone.
    pub fn kill(mut self) -> StoppedRedis {
        let _ = self.child.kill();
        let _ = self.child.wait();
        StoppedRedis { port: self.port }
    }

    /// Freezes the server in place (SIGSTOP), as a network partition looks to its clients:
    /// their connections stay open and nothing answers. Thawed by [`RedisServer::thaw`].
    pub fn freeze(&self) {
        self.signal("-STOP");
    }

    /// Lets a frozen server run again (SIGCONT).
    pub fn thaw(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap_or_else(|e| panic!("kill {signal}: {e}"));
        assert!(status.success(), "kill {signal} failed");
    }

    /// Sends one command in a connection of its own and returns the first line of the reply
    /// (`+PONG`, `:2`, `-ERR …`).
    pub fn command(&self, args: &[&str]) -> std::io::Result<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        let mut request = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            request.extend_from_slice(format!("${}\r\n{arg}\r\n", arg.len()).as_bytes());
        }
        stream.write_all(&request)?;
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line)?;
        Ok(line.trim_end().to_owned())
    }

    /// PUBLISHes `payload` on `channel` as a client other than the bus would, returning how
    /// many subscribers Redis handed it to.
    pub fn publish(&self, channel: &str, payload: &str) -> i64 {
        let reply = self
            .command(&["PUBLISH", channel, payload])
            .unwrap_or_else(|e| panic!("PUBLISH: {e}"));
        reply
            .strip_prefix(':')
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("PUBLISH replied {reply:?}"))
    }
}

/// The port of a killed server, to start it again where its clients look for it.
pub struct StoppedRedis {
    port: u16,
}

impl StoppedRedis {
    /// Starts a new server on the same port.
    pub fn restart(self) -> RedisServer {
        let binary = installed("redis-server").expect("redis-server ran a moment ago");
        RedisServer::start_with(&binary, self.port)
    }
}
