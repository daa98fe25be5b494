//! Protocol revisions and the two generations of the wire.

/// The stateless revision: every request carries its version and capabilities in `_meta`,
/// and servers ask for input by returning `InputRequiredResult` (multi round-trip requests).
pub const V2026_07_28: &str = "2026-07-28";
/// The last session-based revision: `initialize`, then a session with server→client requests.
pub const V2025_11_25: &str = "2025-11-25";

/// Revisions served statelessly (a request names one of them in `_meta`).
pub const MODERN_VERSIONS: &[&str] = &[V2026_07_28];
/// Revisions a client may negotiate with `initialize`, newest first.
pub const LEGACY_VERSIONS: &[&str] = &[V2025_11_25, "2025-06-18", "2025-03-26"];

/// Which wire a request travels on, named after the revision that defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Generation {
    /// 2026-07-28 and later: stateless, `_meta` on every request, `resultType` on every result.
    V2026_07_28,
    /// 2025-11-25 and the revisions before it: `initialize` + a session, server→client
    /// requests.
    V2025_11_25,
}

/// Whether `version` is served statelessly.
pub fn is_modern(version: &str) -> bool {
    MODERN_VERSIONS.contains(&version)
}

/// The legacy revision to answer `initialize` with: the client's, when we speak it, else our newest.
pub fn negotiate_legacy(requested: &str) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == requested)
        .unwrap_or(V2025_11_25)
}
