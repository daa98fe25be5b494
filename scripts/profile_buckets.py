#!/usr/bin/env python3
"""Instructions per operation split into buckets (transport, MCP routing, gate, sealing,
resolve, handler), from callgrind dumps taken with --separate-callers, for scripts/profile.sh.

  profile_buckets.py OPS OUT_JSON SERVER:SCENARIO:DUMP...

Each dump covers exactly OPS operations. Every instruction goes to the bucket of the innermost
function on its call stack that a pattern of BUCKETS names (the stack is the one callgrind
records with --separate-callers, innermost first); library code that no pattern names (serde_json,
the allocator, memcpy) is charged to whoever called it. So the buckets do not overlap and add up
to the total. Prints a table per dump and writes OUT_JSON for scripts/bench_charts.py.

The patterns follow the runtime's function names, which change as it is optimized: a bucket that
gets nothing where it should (ZERO below) is a pattern that no longer names anything, and the
script says so.
"""
import json
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

# (bucket, where it must not be empty, regex on one frame's demangled name). The specific rows
# come first: the innermost frame on the stack that one of them names decides. Only a stack that
# none of them names goes by the catch-alls in GENERIC (the innermost frame they name), so a
# serde visitor of the runtime called from the gate is the gate's. Within one frame, the first
# row that matches decides.
BUCKETS = [
    # What the user's crate compiles: the tool function and what `#[mcp::tool]` generates around
    # it (its argument decoding, its result); the floor's whole `call`.
    ("handler", ("mcp", "floor"), r"bench_tools::|^floor_peer::call$"),
    # The params of a multi-round method decoded from the members the gate found: the gate's
    # reading, though the trait that does it lives with the sealing (whether it is a frame of
    # its own is up to the inliner).
    ("gate", ("mcp",), r"MultiRoundParams>::from_pieces$"),
    # Seal, open, the claims and the request binding's digest.
    ("sealing", ("mcp:mrtr",), r"mcp_runtime::state::|mcp_runtime::server::sealing::"),
    # The answer ledger, the rounds, the form check of an answer.
    ("resolve", ("mcp:mrtr",), r"mcp_runtime::resolve::"),
    # The read of `_meta` and `requestState` before dispatch, and the admission.
    ("gate", ("mcp",), r"mcp_runtime::server::(gate|preread)::"),
    # The JSON-RPC envelope (the message parsed, its params left raw) and the HTTP response built
    # around the answer line. (Writing the line itself serializes the result: MCP's.)
    ("transport", ("mcp",), r"mcp_runtime::protocol::jsonrpc::Incoming::parse"
                            r"|mcp_runtime::transport::http::respond::json_with_status"),
]
GENERIC = [
    ("MCP routing + JSON", ("mcp",), r"mcp_runtime::|\bmcp::"),
    ("transport", ("mcp", "floor"), r"\b(hyper|hyper_util|axum|axum_core|tokio|mio|http|httparse|http_body"
                                     r"|http_body_util|tower|tower_service|tower_layer|futures_util|floor_peer)::"),
]
# Bottom to top in the bars.
ORDER = ["transport", "MCP routing + JSON", "gate", "sealing", "resolve", "handler", "unattributed"]
SPECIFIC = [(bucket, re.compile(pattern)) for bucket, _, pattern in BUCKETS]
CATCH_ALL = [(bucket, re.compile(pattern)) for bucket, _, pattern in GENERIC]
LABELS = {"echo": "echo", "mrtr": "MRTR exchange"}


def contexts(path):
    """Self cost (Ir) per call-stack context of a callgrind dump: {frames: ir}, frames innermost first."""
    names, costs = {}, {}
    current, after_call = None, False
    with open(path, errors="replace") as dump:
        for line in dump:
            if line.startswith(("fn=", "cfn=")):
                key, _, rest = line.rstrip("\n").partition("=")
                m = re.match(r"\((\d+)\)(?: (.*))?$", rest)
                name = rest
                if m:
                    name = names.setdefault(m.group(1), m.group(2)) if m.group(2) else names.get(m.group(1), "?")
                if key == "fn":
                    current = name
                    after_call = False
                continue
            if line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            if after_call:
                after_call = False
                continue
            parts = line.split()
            if len(parts) >= 2 and current is not None:
                costs[current] = costs.get(current, 0) + int(parts[1])
    return costs


def bucket_of(context):
    frames = context.split("'")
    for rows in (SPECIFIC, CATCH_ALL):
        for frame in frames:
            for bucket, pattern in rows:
                if pattern.search(frame):
                    return bucket
    return "unattributed"


def split(path):
    totals = {bucket: 0 for bucket in ORDER}
    for context, ir in contexts(path).items():
        totals[bucket_of(context)] += ir
    return totals


def git_rev():
    root = Path(__file__).resolve().parent.parent
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "diff", "--quiet", "HEAD", "--", "."]).returncode != 0
        return rev + (" (dirty)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    ops, out = int(argv[0]), Path(argv[1])
    profiles, missing = [], []
    for spec in argv[2:]:
        server, scenario, path = spec.split(":", 2)
        totals = split(path)
        total = sum(totals.values())
        per_op = {bucket: ir / ops for bucket, ir in totals.items() if ir}
        profiles.append({"server": server, "scenario": scenario, "label": LABELS.get(scenario, scenario),
                         "total": total / ops, "buckets": per_op})
        print(f"-- {server} {scenario}: {total / ops:,.0f} Ir per op ({ops} ops)")
        for bucket in ORDER:
            ir = totals[bucket] / ops
            expected = any(b == bucket and (server in where or f"{server}:{scenario}" in where)
                           for b, where, _ in BUCKETS + GENERIC)
            flag = "  ZERO: no function matched this bucket's patterns" if expected and not ir else ""
            if ir or flag:
                print(f"  {bucket:<20} {ir:>10,.0f}  {100 * ir / (total / ops):5.1f}%{flag}")
            if flag:
                missing.append(f"{server} {scenario}: {bucket}")
        if totals["unattributed"] > 0.02 * total:
            print("  WARNING: more than 2% unattributed: a pattern is missing")
    data = {"git": git_rev(), "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"), "ops": ops,
            "buckets": ORDER, "profiles": profiles}
    out.write_text(json.dumps(data, indent=1) + "\n")
    if missing:
        print("WARNING: buckets with nothing in them (update BUCKETS in scripts/profile_buckets.py): " + ", ".join(missing))


if __name__ == "__main__":
    main(sys.argv[1:])
