//! Pieces every macro shares.

pub mod attrs;
pub mod docs;
pub mod errors;
pub mod paths;
pub mod types;
