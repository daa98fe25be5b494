//! The examples' log: on stderr (stdout may carry the protocol), at `info` unless `RUST_LOG`
//! says otherwise. Every request the server refuses is logged there with its reason.

/// Installs the subscriber; call once, first thing in `main`.
pub fn init() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
