//! Compile-pass and compile-fail cases of the macros. Refresh the committed `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p ui-tests` after a deliberate change (or a toolchain
//! upgrade; `rust-toolchain.toml` pins it).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("pass/**/*.rs");
    cases.compile_fail("fail/**/*.rs");
}
