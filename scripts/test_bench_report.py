#!/usr/bin/env python3
"""Checks the issue-25 targets of scripts/bench_report.py, one run's and --across several, on
result directories written by hand:

    python3 scripts/test_bench_report.py
"""
import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_report  # noqa: E402


def run(peer, scenario, ops, cpu, p99, round_=1):
    return {"peer": peer, "scenario": scenario, "conc": 32, "round": round_, "ops": ops * 10, "errors": 0,
            "ops_per_s": ops, "http_req_per_s": ops, "p50_ms": p99 / 2, "p99_ms": p99, "server_cpu_util": 0.98,
            "server_cpu_us_per_op": cpu, "loadgen_cpu_util": 0.5}


def server(peer, peak_kb):
    return {"peer": peer, "round": 1, "startup_ms": 5, "idle_rss_kb": 5000, "peak_rss_kb": peak_kb, "threads_at_end": 2}


def write(directory, git, echo_cpu, exchange_ops, peak_kb):
    """One invocation in which mcp's exchange is exchange_ops/s against rmcp's 10,000, its echo
    costs echo_cpu µs against the floor's 10, and everything else meets its target."""
    directory.mkdir()
    runs = [
        run("mcp", "echo", 80_000, echo_cpu, 1.0),
        run("rmcp", "echo", 30_000, 33.0, 3.0),
        run("floor", "echo", 100_000, 10.0, 0.5),
        run("mcp", "mrtr", exchange_ops, 30.0, 2.0),
        run("rmcp", "mrtr", 10_000, 80.0, 4.0),
        run("floor", "mrtr", 45_000, 21.0, 1.0),
    ]
    (directory / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    servers = [server("mcp", peak_kb), server("rmcp", 7800), server("floor", 4200)]
    (directory / "servers.jsonl").write_text("".join(json.dumps(s) + "\n" for s in servers))
    (directory / "meta.txt").write_text(f"date: today\ngit: {git}\n")
    return directory


def printed(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
    return out.getvalue()


class Targets(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def targets(self, directory):
        _, runs, servers = bench_report.read_results(directory)
        targets = bench_report.targets_25(bench_report.keyed(runs), servers)
        return {t.name: (round(t.value, 2), t.met) for t in targets}

    def across(self, *runs):
        """`--across` over one invocation per (echo CPU, exchange ops/s, peak RSS KB), named
        one, two, three… with git 111, 222, 333…"""
        names = ("one", "two", "three", "four")
        dirs = [
            write(self.root / names[i], str(i + 1) * 3, echo_cpu=echo, exchange_ops=ops, peak_kb=peak)
            for i, (echo, ops, peak) in enumerate(runs)
        ]
        return printed(bench_report.across, dirs)

    def test_one_run_is_judged_target_by_target(self):
        found = self.targets(write(self.root / "a", "aaa", echo_cpu=12.5, exchange_ops=26_000, peak_kb=6100))
        self.assertEqual(found["mrtr c=32 throughput ≥ 2.5× rmcp"], (2.6, True))
        self.assertEqual(found["echo c=32 server CPU per call ≤ 1.2× the floor's"], (1.25, False))
        self.assertEqual(found["mrtr c=32 server CPU per exchange ≤ 1.5× the floor's"], (1.43, True))
        self.assertEqual(found["echo c=32 p99, rmcp / mcp ≥ 2.58x (last recorded)"], (3.0, True))
        self.assertEqual(found["mcp peak RSS ≤ 6.0 MB"], (5.96, True))
        over = self.targets(write(self.root / "b", "bbb", echo_cpu=11.0, exchange_ops=24_000, peak_kb=6200))
        self.assertEqual(over["mrtr c=32 throughput ≥ 2.5× rmcp"], (2.4, False))
        self.assertEqual(over["mcp peak RSS ≤ 6.0 MB"], (6.05, False))

    def test_across_runs_counts_each_target_and_judges_the_median(self):
        out = self.across((12.5, 26_000, 6100), (11.0, 24_000, 6100), (11.5, 27_000, 6200))
        rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines() if line.startswith("| ")}
        # Echo CPU 1.25 ✗, 1.10, 1.15: met in two, median 1.15 meets it.
        echo = rows["echo c=32 server CPU per call ≤ 1.2× the floor's"]
        self.assertIn("| 1.25 ✗ | 1.10 | 1.15 | 2 of 3 | 1.15 | yes |", echo)
        # Throughput 2.60, 2.40 ✗, 2.70: median 2.60.
        throughput = rows["mrtr c=32 throughput ≥ 2.5× rmcp"]
        self.assertIn("| 2.60 | 2.40 ✗ | 2.70 | 2 of 3 | 2.60 | yes |", throughput)
        # RSS 5.96, 5.96, 6.05 ✗.
        self.assertIn("| 2 of 3 | 5.96 | yes |", rows["mcp peak RSS ≤ 6.0 MB"])
        # Each run misses one target, so none meets them all.
        self.assertIn("Runs meeting every target at once: 0 of 3.", out)
        self.assertIn("`two` (git 222)", out)

    def test_a_median_that_misses_is_a_miss(self):
        out = self.across((12.5, 26_000, 6000), (13.0, 26_000, 6000), (11.0, 26_000, 6000))
        echo = next(line for line in out.splitlines() if line.startswith("| echo c=32 server CPU"))
        self.assertIn("| 1 of 3 | 1.25 | NO |", echo)
        self.assertIn("Runs meeting every target at once: 1 of 3.", out)


if __name__ == "__main__":
    unittest.main()
