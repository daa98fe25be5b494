//! Tables keyed by names the server chose (its tools, prompts, static resources, extension
//! methods), looked up on every request by the name the client sent.

use std::collections::HashMap;

/// A table of the server's names. Its keys come from the application's code, or for a proxy
/// from the listing of the server it forwards to; a client's name only ever probes it. So it
/// needs no defence against a client choosing keys that collide, which is what SipHash, the
/// standard hasher, pays for on every lookup (about a hundred instructions for a short name).
/// foldhash, hashbrown's own default, takes a fraction of that, with a random seed per table
/// that nothing reveals: the listings are kept in order apart from these tables.
pub(crate) type NameMap<V> = HashMap<String, V, foldhash::fast::RandomState>;
