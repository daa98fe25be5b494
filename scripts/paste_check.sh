#!/usr/bin/env bash
# Builds every Rust example of the README as a user would paste it: each one becomes a program
# of a fresh crate outside the workspace whose `[dependencies]` are the README's own block (its
# `mcp` path pointed at this checkout, with the `jwt`, `redis`, `oauth` and `otel` features the
# JWT, Redis, OAuth and telemetry examples ask for). Lines rustdoc hides (`# …`) are pasted too, and a block
# without `fn main` is wrapped in one, as rustdoc does. The README's `[profile.…]` block goes into
# the crate's Cargo.toml as well. Fails if any program does not build.
#
# Shares the workspace's target directory (CARGO_TARGET_DIR, else ./target), so the
# dependencies already built for the tests are reused.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
crate="$(mktemp -d)"
trap 'rm -rf "$crate"' EXIT

python3 - "$repo" "$crate" <<'PY'
import os, re, sys
repo, crate = sys.argv[1], sys.argv[2]
readme = open(os.path.join(repo, "README.md")).read()
blocks = re.findall(r"^```([^\n]*)\n(.*?)^```", readme, re.S | re.M)

deps = [body for info, body in blocks if info.strip() == "toml" and body.startswith("[dependencies]")]
if len(deps) != 1:
    sys.exit(f"expected one ```toml [dependencies] block in the README, found {len(deps)}")
# The JWT, Redis, OAuth and telemetry examples say to turn on `jwt`, `redis`, `oauth` and
# `otel`; the others build with or without them.
dependencies, n = re.subn(
    r'path = "[^"]*"', f'path = "{repo}", features = ["jwt", "redis", "oauth", "otel"]', deps[0], count=1
)
if n != 1:
    sys.exit("the README's [dependencies] block names no path for mcp")
with open(os.path.join(crate, "Cargo.toml"), "w") as f:
    f.write('[package]\nname = "pasted"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n')
    f.write(dependencies)
    f.write("\n[workspace]\n")
    # The README's build profile goes in too, so that Cargo reads it as it would in a user's crate.
    for info, body in blocks:
        if info.strip() == "toml" and body.startswith("[profile."):
            f.write("\n" + body)

def pasted(body):
    lines = []
    for line in body.splitlines():
        bare = line.lstrip()
        if bare == "#" or bare.startswith("# "):
            line = line[: len(line) - len(bare)] + bare[2:]
        lines.append(line)
    code = "\n".join(lines)
    if not re.search(r"\bfn main\s*\(", code):
        code = "fn main() {\n" + code + "\n}"
    return "#![allow(unused)]\n" + code + "\n"

os.makedirs(os.path.join(crate, "src", "bin"))
count = 0
for info, body in blocks:
    words = [w.strip() for w in info.split(",")]
    # `rust,ignore,otel`: a telemetry example, which the crate's doctests (built without the
    # `otel` feature, see the root Cargo.toml) leave out and this check builds.
    skipped = {"ignore", "compile_fail", "text"} - ({"ignore"} if "otel" in words else set())
    if not words or words[0] != "rust" or skipped & set(words):
        continue
    count += 1
    with open(os.path.join(crate, "src", "bin", f"readme_{count}.rs"), "w") as f:
        f.write(pasted(body))
print(f"{count} README examples pasted into {crate}")
PY

# The workspace's versions, so nothing is fetched or built again that need not be.
cp "$repo/Cargo.lock" "$crate/Cargo.lock"
cd "$crate"
cargo build --quiet --bins
echo "every README example builds in a crate of its own"
