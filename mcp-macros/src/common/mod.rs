//! Pieces every macro shares.

pub mod attrs;
pub mod check;
pub mod describe;
pub mod docs;
pub mod errors;
pub mod naming;
pub mod params;
pub mod paths;
pub mod policy;
pub mod registration;
pub mod resolve;
pub mod types;
