//! Procedural macros of the `mcp` framework. Use them through the `mcp` facade crate.
//!
//! The macros land with their own issue; this crate only reserves its place in the workspace.
