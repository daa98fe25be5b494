"""Markdown report of one scripts/bench_peers.sh invocation: reads RESULTS_DIR/{meta.txt,
runs.jsonl,servers.jsonl} and prints the run table, the server table, the ratios of `mcp` to
each peer, every peer against the floor, and the targets of issues 25 and 9. With several
rounds (--repeat), every figure is the median over the rounds (peak RSS: the highest), and
ops/s shows the min-max. Standard library only.

    python3 scripts/bench_report.py target/bench-results/<timestamp>

With --across and several such directories, it prints the issue-25 targets of each, how many
of them meet each target, and whether the median over them does: what one run says, against
the spread of runs of the same code on a noisy machine.

    python3 scripts/bench_report.py --across target/bench-results/<t1> target/bench-results/<t2> ...
"""

import json
import statistics
import sys
from pathlib import Path
from typing import Callable, NamedTuple, Optional

from bench_charts import meta_of, run_key

# mcp / rmcp p99 latency ratios at c=32 of the last recorded run (BENCHMARKS.md, git af18f05):
# issue 25 asks for no worse.
RECORDED_P99_VS_RMCP = {"echo": 2.58, "mrtr": 1.71}
# Issue 25: mcp's peak RSS under the benchmark, at most today's 6.0 MB.
PEAK_RSS_LIMIT_KB = 6.0 * 1024
# Above this share of its core, mcpload may be what limits a run.
LOADGEN_BUSY = 0.85


def load(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def num(value, digits=0):
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def spread(run):
    low, high = run["ops_range"]
    return f" ({num(low)}-{num(high)})" if run["rounds"] > 1 else ""


def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "-"


def median_of(rows, key):
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def combine_runs(rows):
    """One run per (peer, scenario, conc): medians over the rounds, errors and ops summed."""
    out = dict(rows[0])
    for key in ("ops_per_s", "http_req_per_s", "p50_ms", "p99_ms", "server_cpu_util", "server_cpu_us_per_op", "loadgen_cpu_util"):
        out[key] = median_of(rows, key)
    out["ops"] = sum(r["ops"] for r in rows)
    out["errors"] = sum(r["errors"] for r in rows)
    out["rounds"] = len(rows)
    out["ops_range"] = (min(r["ops_per_s"] for r in rows), max(r["ops_per_s"] for r in rows))
    return out


def combine_servers(rows):
    out = dict(rows[0])
    out["startup_ms"] = median_of(rows, "startup_ms")
    out["idle_rss_kb"] = median_of(rows, "idle_rss_kb")
    out["peak_rss_kb"] = max(r["peak_rss_kb"] for r in rows)
    # What the resident memory is made of at the end (the code and libraries mapped from files,
    # the heap and stacks), which the peak alone does not say; older runs did not record it.
    out["anon_rss_kb_at_end"] = median_of(rows, "anon_rss_kb_at_end")
    out["file_rss_kb_at_end"] = median_of(rows, "file_rss_kb_at_end")
    out["threads_at_end"] = rows[-1]["threads_at_end"]
    return out


def group(rows, key):
    groups = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


def cpu(run):
    return run.get("server_cpu_us_per_op") if run else None


def print_floor(runs, by_key, peers):
    """Every peer against the floor: the share of the floor's throughput it reaches, and its
    server CPU per op as a multiple of the floor's (what the issue-25 targets are stated in)."""
    if "floor" not in peers:
        return
    print("\n### Against the floor (peer / floor: throughput as a share of the floor's; server CPU per op as a multiple of the floor's)\n")
    print("| peer | scenario | conc | throughput / floor | p99 / floor | server CPU per op / floor | CPU over the floor µs/op |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in sorted(runs, key=lambda r: (r["scenario"], r["conc"], peers.index(r["peer"]))):
        floor = by_key.get(("floor", r["scenario"], r["conc"]))
        if r["peer"] == "floor" or not floor:
            continue
        over = cpu(r) - cpu(floor) if cpu(r) is not None and cpu(floor) is not None else None
        print(
            f"| {r['peer']} | {r['scenario']} | {r['conc']} | {ratio(r['ops_per_s'], floor['ops_per_s'])} "
            f"| {ratio(r['p99_ms'], floor['p99_ms'])} | {ratio(cpu(r), cpu(floor))} | {num(over, 1)} |"
        )


def print_sweep(runs, peers, concs):
    """ops/s and p99 per concurrency, one row per peer and scenario: the charts' numbers."""
    by_key = keyed(runs)
    for title, key, digits in (("ops/s", "ops_per_s", 0), ("p99 ms", "p99_ms", 2), ("server CPU µs/op", "server_cpu_us_per_op", 1)):
        print(f"\n### Sweep: {title} by concurrency\n")
        print("| peer | scenario | " + " | ".join(f"c={c}" for c in concs) + " |")
        print("|---|---|" + "---:|" * len(concs))
        for scenario in dict.fromkeys(r["scenario"] for r in runs):
            for peer in peers:
                cells = []
                for c in concs:
                    r = by_key.get((peer, scenario, c))
                    cell = num(r.get(key), digits) if r else "-"
                    cells.append(cell + (f" ({r['errors']} err)" if r and r["errors"] else ""))
                print(f"| {peer} | {scenario} | " + " | ".join(cells) + " |")


def verdict(met):
    return "-" if met is None else ("yes" if met else "NO")


class Target(NamedTuple):
    """One issue-25 target as one run measures it; `value` is None where the run cannot say."""

    name: str
    value: Optional[float]
    shown: str
    test: Optional[Callable[[float], bool]]

    @property
    def met(self):
        return self.test(self.value) if self.test and self.value is not None else None


def targets_25(by_key, servers):
    """The targets of issue 25 that one run measures (seal + open is `cargo bench --bench sealing`)."""
    top_conc = max(conc for _, _, conc in by_key)
    at32 = {(p, s): by_key.get((p, s, 32)) for p in ("mcp", "rmcp", "floor") for s in ("echo", "mrtr")}
    rows = []
    mine, theirs = at32["mcp", "mrtr"], at32["rmcp", "mrtr"]
    value = mine["ops_per_s"] / theirs["ops_per_s"] if mine and theirs and theirs["ops_per_s"] else None
    rows.append(("mrtr c=32 throughput ≥ 2.5× rmcp", value, f"{value:.2f}x" if value else "-", lambda v: v >= 2.5))
    for scenario, goal, what in (("mrtr", 1.5, "exchange"), ("echo", 1.2, "call")):
        mine, floor = cpu(at32["mcp", scenario]), cpu(at32["floor", scenario])
        value = mine / floor if mine and floor else None
        shown = f"{value:.2f}x ({mine:.1f} vs {floor:.1f} µs)" if value else "-"
        rows.append((f"{scenario} c=32 server CPU per {what} ≤ {goal}× the floor's", value, shown, lambda v, g=goal: v <= g))
    for scenario, recorded in RECORDED_P99_VS_RMCP.items():
        mine, theirs = at32["mcp", scenario], at32["rmcp", scenario]
        value = theirs["p99_ms"] / mine["p99_ms"] if mine and theirs and mine["p99_ms"] else None
        shown = f"{value:.2f}x ({mine['p99_ms']:.3f} vs {theirs['p99_ms']:.3f} ms)" if value else "-"
        rows.append((f"{scenario} c=32 p99, rmcp / mcp ≥ {recorded}x (last recorded)", value, shown, lambda v, r=recorded: v >= r))
    if "mcp" in servers:
        peak = servers["mcp"]["peak_rss_kb"] / 1024
        if top_conc > 32:
            # VmHWM covers every run of the peer; more connections hold more buffers.
            rows.append((f"mcp peak RSS ≤ 6.0 MB (judged at c ≤ 32; this run went to c={top_conc})", None, f"{peak:.2f} MB", None))
        else:
            rows.append(("mcp peak RSS ≤ 6.0 MB", peak, f"{peak:.2f} MB", lambda v: v <= PEAK_RSS_LIMIT_KB / 1024))
    return [Target(*row) for row in rows]


def print_targets_25(by_key, servers):
    print("\n### Targets (issue 25)\n")
    print("| target | measured | met |")
    print("|---|---:|---|")
    for target in targets_25(by_key, servers):
        print(f"| {target.name} | {target.shown} | {verdict(target.met)} |")
    print("\nSeal + open ≤ 2 µs is measured by `cargo bench -p mcp-runtime --bench sealing`, not here.")


def print_targets_9(by_key, servers, base):
    print("\n### Targets (issue 9)\n")
    print("| target | measured | met |")
    print("|---|---:|---|")

    def thr(peer, scenario):
        a, b = by_key.get(("mcp", scenario, 32)), by_key.get((peer, scenario, 32))
        return a["ops_per_s"] / b["ops_per_s"] if a and b and b["ops_per_s"] else None

    checks = [
        ("echo c=32 ≥ 2× rmcp", thr("rmcp", "echo"), 2.0),
        ("mrtr c=32 ≥ 2× rmcp", thr("rmcp", "mrtr"), 2.0),
        ("echo c=32 ≥ 20× py", thr("py", "echo"), 20.0),
        ("mrtr c=32 ≥ 20× py", thr("py", "mrtr"), 20.0),
    ]
    for name, value, goal in checks:
        if value is not None:
            print(f"| {name} | {value:.2f}x | {'yes' if value >= goal else 'NO'} |")
    if "mcp" in servers and base:
        mine, theirs = servers["mcp"]["peak_rss_kb"], base["peak_rss_kb"]
        print(f"| peak RSS ≤ rmcp's | {mine / 1024:.1f} vs {theirs / 1024:.1f} MB | {'yes' if mine <= theirs else 'NO'} |")
    if "mcp" in servers:
        ms = servers["mcp"]["startup_ms"]
        print(f"| startup to first request < 50 ms | {ms:.1f} ms | {'yes' if ms < 50 else 'NO'} |")


def keyed(runs):
    """Runs by their `run_key`."""
    return {run_key(r): r for r in runs}


def read_results(results):
    """The raw runs of one invocation, its runs combined over the rounds, and its servers."""
    raw_runs = load(results / "runs.jsonl")
    runs = [combine_runs(rows) for rows in group(raw_runs, run_key).values()]
    servers = {peer: combine_servers(rows) for peer, rows in group(load(results / "servers.jsonl"), lambda s: s["peer"]).items()}
    return raw_runs, runs, servers


def across(dirs):
    """The issue-25 targets in each of several invocations, and by the median over them: how
    often a target is met, and whether the runs' median meets it."""
    verdicts = []
    for results in dirs:
        _, runs, servers = read_results(results)
        if not runs:
            sys.exit(f"no runs in {results}")
        by_key = keyed(runs)
        verdicts.append(targets_25(by_key, servers))
    print(f"# Issue-25 targets across {len(dirs)} runs\n")
    for number, results in enumerate(dirs, 1):
        git, _, _ = meta_of(results)
        print(f"{number}. `{results.name}` (git {git})")
    print("\n| target | " + " | ".join(str(n) for n in range(1, len(dirs) + 1)) + " | met in | median | median meets |")
    print("|---|" + "---:|" * len(dirs) + "---:|---:|---|")
    for index, first in enumerate(verdicts[0]):
        cells, values, met = [], [], 0
        for rows in verdicts:
            target = rows[index] if index < len(rows) else first._replace(value=None)
            cells.append("-" if target.value is None else f"{target.value:.2f}" + ("" if target.met else " ✗"))
            if target.value is not None:
                values.append(target.value)
                met += bool(target.met)
        median = first._replace(value=statistics.median(values) if values else None)
        shown = "-" if median.value is None else f"{median.value:.2f}"
        print(f"| {first.name} | " + " | ".join(cells) + f" | {met} of {len(values)} | {shown} | {verdict(median.met)} |")
    every = sum(all(t.met for t in rows if t.value is not None) for rows in verdicts)
    print(f"\nRuns meeting every target at once: {every} of {len(dirs)}.")


def main(results):
    raw_runs, runs, servers = read_results(results)
    rounds = max((r["rounds"] for r in runs), default=1)
    meta = (results / "meta.txt").read_text() if (results / "meta.txt").exists() else ""
    by_key = keyed(runs)
    peers = list(dict.fromkeys(r["peer"] for r in runs))

    print(f"# Load benchmark: {results.name}\n")
    print("```text\n" + meta.strip() + "\n```\n")
    if rounds > 1:
        print(f"Medians of {rounds} rounds; ops/s shows the min-max; ok and err are totals.\n")
    print("### Throughput and latency (closed loop; mrtr op = one full 2-round exchange)\n")
    print("| peer | scenario | conc | ops/s | HTTP req/s | p50 ms | p99 ms | ok | err | server CPU | server CPU µs/op | loadgen CPU |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in sorted(runs, key=lambda r: (r["scenario"], peers.index(r["peer"]), r["conc"])):
        print(
            f"| {r['peer']} | {r['scenario']} | {r['conc']} | {num(r['ops_per_s'])}{spread(r)} | {num(r['http_req_per_s'])} "
            f"| {num(r['p50_ms'], 3)} | {num(r['p99_ms'], 3)} | {r['ops']} | {r['errors']} "
            f"| {num(r.get('server_cpu_util'), 2)} | {num(r.get('server_cpu_us_per_op'), 1)} | {num(r.get('loadgen_cpu_util'), 2)} |"
        )

    print("\n### Servers (startup = spawn to first answered echo; RSS from /proc/PID/status)\n")
    base = servers.get("rmcp")
    print("| peer | startup ms | idle RSS MB | peak RSS MB (VmHWM) | peak vs rmcp | at end: files / anonymous MB | threads at end |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for peer in peers:
        s = servers.get(peer)
        if not s:
            continue
        vs = f"{s['peak_rss_kb'] / base['peak_rss_kb']:.2f}x" if base else "-"
        files, anon = s.get("file_rss_kb_at_end"), s.get("anon_rss_kb_at_end")
        split = f"{files / 1024:.2f} / {anon / 1024:.2f}" if files is not None and anon is not None else "-"
        print(
            f"| {peer} | {s['startup_ms']:.1f} | {s['idle_rss_kb'] / 1024:.1f} | {s['peak_rss_kb'] / 1024:.1f} "
            f"| {vs} | {split} | {s['threads_at_end']} |"
        )

    concs = sorted({r["conc"] for r in runs})
    if len(concs) > 2:
        print_sweep(runs, peers, concs)
    # A sweep's ratios are given where the targets are stated; its charts show the rest.
    shown = [c for c in concs if c in (1, 32)] if len(concs) > 2 else concs

    others = [p for p in peers if p != "mcp"]
    if "mcp" in peers and others:
        print("\n### Ratios (mcp / peer; >1 means mcp is better: more ops/s, lower latency, less CPU per op)\n")
        print("| A / B | scenario | conc | throughput | p50 latency | p99 latency | server CPU per op |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for peer in others:
            for (p, scenario, conc), a in sorted(by_key.items(), key=lambda kv: (kv[0][1], kv[0][2])):
                b = by_key.get((peer, scenario, conc))
                if p != "mcp" or not b or conc not in shown:
                    continue
                print(
                    f"| mcp / {peer} | {scenario} | {conc} | {ratio(a['ops_per_s'], b['ops_per_s'])} "
                    f"| {ratio(b['p50_ms'], a['p50_ms'])} | {ratio(b['p99_ms'], a['p99_ms'])} "
                    f"| {ratio(b.get('server_cpu_us_per_op'), a.get('server_cpu_us_per_op'))} |"
                )

        print_floor([r for r in runs if r["conc"] in shown], by_key, peers)
        print_targets_25(by_key, servers)
        print_targets_9(by_key, servers, base)

    busy = [r for r in runs if (r.get("loadgen_cpu_util") or 0) > LOADGEN_BUSY]
    if busy:
        print(
            f"\nWARNING: mcpload used more than {LOADGEN_BUSY} of its core in these runs, so they may be bounded by the "
            "load generator, not the server: compare server CPU per op there, not ops/s or latency.\n"
        )
        print("| peer | scenario | conc | mcpload CPU | server CPU |")
        print("|---|---|---:|---:|---:|")
        for r in sorted(busy, key=lambda r: (r["scenario"], peers.index(r["peer"]), r["conc"])):
            print(f"| {r['peer']} | {r['scenario']} | {r['conc']} | {r['loadgen_cpu_util']:.2f} | {num(r.get('server_cpu_util'), 2)} |")
    errors = sum(r["errors"] for r in raw_runs)
    print(f"\nErrors over all runs: {errors}. Raw data: `{results}`.")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--across":
        across([Path(d) for d in sys.argv[2:]])
    elif len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        main(Path(sys.argv[1]))
    else:
        sys.exit(__doc__)
