//! The real authorization server of the end-to-end OAuth test: `tests/oauth_server/server.mjs`
//! (oidc-provider on Node 22, installed by `scripts/oauth_server.sh`), over https on a free
//! loopback port, killed when its guard drops. Its sign-in page signs in whoever a
//! `POST /interaction/<uid>?user=<name>` names.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::process::{ChildGuard, free_port, root};

/// A running authorization server.
pub struct OAuthServer {
    _child: ChildGuard,
    issuer: String,
    public_key: PathBuf,
}

/// Node 22 with the server's packages, installed on first use.
fn node() -> &'static PathBuf {
    static NODE: OnceLock<PathBuf> = OnceLock::new();
    NODE.get_or_init(|| {
        let status = Command::new(root().join("scripts/oauth_server.sh"))
            .stdout(Stdio::null())
            .status()
            .expect("run scripts/oauth_server.sh");
        assert!(status.success(), "scripts/oauth_server.sh failed");
        root().join(".tools/node22/node_modules/.bin/node")
    })
}

impl OAuthServer {
    /// Issues tokens for `resource` only (its `aud`), signed with a key made for this run;
    /// serves https with the PEM `cert` and `key`, and writes its public key into `dir`.
    pub fn start(resource: &str, cert: &Path, key: &Path, dir: &Path) -> Self {
        let port = free_port();
        let public_key = dir.join("issuer-public-key.pem");
        let mut child = ChildGuard::spawn(
            Command::new(node())
                .arg(root().join("tests/oauth_server/server.mjs"))
                .env("AS_PORT", port.to_string())
                .env("AS_RESOURCE", resource)
                .env("AS_TLS_CERT", cert)
                .env("AS_TLS_KEY", key)
                .env("AS_PUBLIC_KEY_OUT", &public_key)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        );
        let stdout = child.stdout.take().expect("piped stdout");
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("read the authorization server's first line");
        let issuer = first
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("the authorization server said {first:?}"))
            .to_owned();
        Self {
            _child: child,
            issuer,
            public_key,
        }
    }

    /// Its issuer identifier, `https://127.0.0.1:<port>`.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The PEM public key its access tokens are signed with.
    pub fn public_key(&self) -> &Path {
        &self.public_key
    }
}
