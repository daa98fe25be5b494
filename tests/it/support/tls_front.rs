//! A real nginx (the Debian package) terminating TLS in front of a plain-HTTP server, as a
//! deployment puts one: HTTP/2 and HTTP/1.1 on a free loopback port, the client's `Host`
//! forwarded, no buffering (SSE streams pass as they come), killed when its guard drops.
//!
//! Missing nginx skips a test, saying so, unless `CI` is set: then it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::process::{ChildGuard, free_port, installed};
use super::tls::TestCa;

/// A running nginx in front of one upstream.
pub struct TlsFront {
    _child: ChildGuard,
    port: u16,
    _dir: TempDir,
}

impl TlsFront {
    /// Serves `https://127.0.0.1:<port>` with the PEM `cert` (chain) and `key`, passing every
    /// request to `http://127.0.0.1:<upstream>`. `None` (after saying why) when nginx is not
    /// installed and `CI` is not set.
    pub fn start(upstream: u16, cert: &Path, key: &Path) -> Option<Self> {
        let Some(nginx) = installed("nginx") else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but nginx is not installed (apt-get install nginx)"
            );
            eprintln!("SKIPPED: nginx is not installed (apt-get install nginx)");
            return None;
        };
        let dir = TempDir::new("tls-front");
        let port = free_port();
        let path = dir.0.display();
        let temp_paths: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .iter()
            .map(|t| format!("  {t}_temp_path {path}/{t};\n"))
            .collect();
        let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
        let config = format!(
            "worker_processes 1;
user {user};
daemon off;
master_process off;
pid {path}/nginx.pid;
error_log {path}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
{temp_paths}  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    location / {{
      proxy_pass http://127.0.0.1:{upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 60s;
    }}
  }}
}}
",
            cert = cert.display(),
            key = key.display(),
        );
        let conf = dir.0.join("nginx.conf");
        std::fs::write(&conf, config).expect("write nginx.conf");
        let mut child = ChildGuard::spawn(
            Command::new(nginx)
                .arg("-p")
                .arg(&dir.0)
                .arg("-c")
                .arg(&conf)
                .arg("-e")
                .arg(dir.0.join("error.log"))
                .stdin(Stdio::null()),
        );
        child.wait_listening(&format!("127.0.0.1:{port}"));
        Some(Self {
            _child: child,
            port,
            _dir: dir,
        })
    }

    /// `https://127.0.0.1:<port>`, no trailing slash.
    pub fn origin(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }
}

/// A certificate `ca` signs for 127.0.0.1 and localhost, and its key, written as PEM files
/// into `dir` for the servers that read files (nginx, Node): their paths.
pub fn server_pem_files(ca: &TestCa, dir: &Path) -> (PathBuf, PathBuf) {
    let (certificate, key) = ca.server_certificate();
    let (cert_file, key_file) = (dir.join("server-cert.pem"), dir.join("server-key.pem"));
    std::fs::write(&cert_file, certificate.pem()).expect("write the certificate");
    std::fs::write(&key_file, key.serialize_pem()).expect("write the key");
    (cert_file, key_file)
}

/// A directory under the system's temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh, empty directory whose name starts with `prefix`.
    pub fn new(prefix: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcp-{prefix}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temp dir");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
