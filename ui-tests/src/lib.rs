//! trybuild cases of the `mcp` macros live in `pass/` and `fail/`.
