//! Tables keyed by names the server chose (its tools, prompts, static resources, extension
//! methods), looked up on every request by the name the client sent.

use std::collections::HashMap;

/// A table of the server's names. A client's name only ever probes it and never goes in, so
/// it needs no defence against keys chosen to collide, which is what SipHash, the standard
/// hasher, pays for on every lookup (about a hundred instructions for a short name);
/// foldhash, hashbrown's own default, takes a fraction of that.
pub(crate) type NameMap<V> = HashMap<String, V, foldhash::fast::RandomState>;
