#!/usr/bin/env python3
"""SVG charts of the benchmarks, standard library only.

  bench_charts.py load RESULTS_DIR [--out DIR]     from one scripts/bench_peers.sh run
  bench_charts.py buckets BUCKETS_JSON [--out DIR]  from scripts/profile.sh's buckets.json

`load` draws, per scenario, throughput, p99 latency and server CPU per op against the
concurrency (log2 x axis, log10 y axis, so the Python SDK and the floor read on one chart), one
line per peer, medians over the rounds; a run with errors gets a red ring. `buckets` draws the
instructions per operation of each profiled server as stacked bars, one segment per bucket.
DIR defaults to RESULTS_DIR/charts (load) or the JSON's folder (buckets).
"""
import json
import math
import re
import statistics
import sys
from html import escape
from pathlib import Path

WIDTH, HEIGHT = 760, 460
LEFT, RIGHT, TOP, BOTTOM = 86, 150, 70, 62
FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'

PEER_STYLE = {  # colour, dash pattern
    "mcp": ("#d62728", ""),
    "rmcp": ("#1f77b4", ""),
    "py": ("#2ca02c", ""),
    "floor": ("#555555", "6 4"),
}
OTHER_COLOURS = ["#9467bd", "#8c564b", "#e377c2", "#17becf"]
PEER_LABEL = {"mcp": "mcp (ours)", "rmcp": "rmcp 3.11", "py": "Python SDK 2.3", "floor": "floor (bare axum)"}

BUCKET_COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"]


def text(x, y, s, size=12, anchor="start", weight="normal", fill="#222", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}" {FONT} {extra}>{escape(str(s))}</text>')


def svg(body, width=WIDTH, height=HEIGHT):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def short_number(v):
    """1, 2, 5, 10, ..., 1k, 20k, 1M; 0.05, 0.1 below one."""
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def log_ticks(low, high):
    """1-2-5 ticks covering [low, high], and the decade bounds of the axis."""
    lo = math.floor(math.log10(low))
    hi = math.ceil(math.log10(high))
    if hi == lo:
        hi += 1
    ticks = [m * 10 ** e for e in range(lo, hi + 1) for m in (1, 2, 5)]
    return [t for t in ticks if 10 ** lo <= t <= 10 ** hi], 10 ** lo, 10 ** hi


def line_chart(title, subtitle, y_label, series, note=""):
    """series: [(label, colour, dash, [(conc, value, errors)])], x log2, y log10."""
    points = [(x, y) for _, _, _, pts in series for x, y, _ in pts if y and y > 0]
    if not points:
        return None
    xs = sorted({x for x, _ in points})
    x_lo, x_hi = math.log2(xs[0]), math.log2(xs[-1])
    if x_hi == x_lo:
        x_hi += 1
    ticks, y_min, y_max = log_ticks(min(y for _, y in points), max(y for _, y in points))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x):
        return LEFT + (math.log2(x) - x_lo) / (x_hi - x_lo) * plot_w

    def py(y):
        return TOP + plot_h - (math.log10(y) - math.log10(y_min)) / (math.log10(y_max) - math.log10(y_min)) * plot_h

    body = [text(WIDTH / 2, 24, title, 16, "middle", "bold"), text(WIDTH / 2, 44, subtitle, 11, "middle", fill="#555")]
    for t in ticks:
        y = py(t)
        major = t == 10 ** round(math.log10(t))
        body.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" '
                    f'stroke="{"#ccc" if major else "#eee"}" stroke-width="1"/>')
        body.append(text(LEFT - 6, y + 4, short_number(t), 11, "end"))
    for x in xs:
        body.append(f'<line x1="{px(x):.1f}" y1="{TOP}" x2="{px(x):.1f}" y2="{TOP + plot_h}" stroke="#eee" stroke-width="1"/>')
        body.append(text(px(x), TOP + plot_h + 16, x, 11, "middle"))
    body.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>')
    body.append(text(LEFT + plot_w / 2, HEIGHT - 22, "concurrency (closed-loop workers, one connection each; log2)", 12, "middle"))
    body.append(text(18, TOP + plot_h / 2, y_label, 12, "middle",
                     extra=f'transform="rotate(-90 18 {TOP + plot_h / 2:.1f})"'))
    errors_drawn = False
    for i, (label, colour, dash, pts) in enumerate(series):
        pts = [(x, y, e) for x, y, e in pts if y and y > 0]
        if not pts:
            continue
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y, _ in pts)
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.2"{dashing}/>')
        for x, y, errors in pts:
            body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.2" fill="{colour}"/>')
            if errors:
                errors_drawn = True
                body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="7" fill="none" stroke="red" stroke-width="1.5"/>')
        ly = TOP + 12 + i * 22
        lx = LEFT + plot_w + 14
        body.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 26}" y2="{ly}" stroke="{colour}" stroke-width="2.2"{dashing}/>')
        body.append(text(lx + 32, ly + 4, label, 11))
    if errors_drawn:
        ly = TOP + 12 + len(series) * 22
        lx = LEFT + plot_w + 14
        body.append(f'<circle cx="{lx + 13}" cy="{ly}" r="6" fill="none" stroke="red" stroke-width="1.5"/>')
        body.append(text(lx + 32, ly + 4, "run had errors", 11))
    if note:
        body.append(text(LEFT, HEIGHT - 6, note, 10, fill="#777"))
    return svg(body)


def load_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def run_key(run):
    """What names one run of an invocation: its peer, scenario and concurrency."""
    return run["peer"], run["scenario"], run["conc"]


def meta_of(results):
    """The commit, the date and the build profile (its name) that a run's meta.txt records."""
    meta = (results / "meta.txt").read_text() if (results / "meta.txt").exists() else ""
    git = re.search(r"^git: (.+)$", meta, re.M)
    date = re.search(r"^date: (\S+)", meta, re.M)
    profile = re.search(r"^profile: (\S+)", meta, re.M)
    return (
        git.group(1) if git else "?",
        date.group(1)[:16].replace("T", " ") if date else "?",
        profile.group(1) if profile else None,
    )


def load_charts(results, out):
    runs = load_lines(results / "runs.jsonl")
    if not runs:
        sys.exit(f"no runs in {results}")
    git, date, profile = meta_of(results)
    built = f" · {profile}" if profile else ""
    rounds = max(r.get("round", 1) for r in runs)
    peers = list(dict.fromkeys(r["peer"] for r in runs))
    # Peers in a fixed order where known, so colours and legend read the same on every chart.
    peers = [p for p in PEER_STYLE if p in peers] + [p for p in peers if p not in PEER_STYLE]
    grouped = {}
    for r in runs:
        grouped.setdefault(run_key(r), []).append(r)
    metrics = [
        ("throughput", "ops_per_s", "Throughput", "{unit} per second (log)"),
        ("p99", "p99_ms", "p99 latency", "p99 latency of one {op}, ms (log)"),
        ("cpu", "server_cpu_us_per_op", "Server CPU per operation", "server CPU µs per {op} (log)"),
    ]
    units = {"echo": ("calls", "call"), "mrtr": ("two-round exchanges", "exchange")}
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for scenario in dict.fromkeys(r["scenario"] for r in runs):
        unit, op = units.get(scenario, ("operations", "operation"))
        for slug, key, name, y_label in metrics:
            series = []
            for i, peer in enumerate(peers):
                colour, dash = PEER_STYLE.get(peer, (OTHER_COLOURS[i % len(OTHER_COLOURS)], ""))
                pts = []
                for (p, s, conc), rows in sorted(grouped.items(), key=lambda kv: kv[0][2]):
                    if p != peer or s != scenario:
                        continue
                    values = [row[key] for row in rows if row.get(key) is not None]
                    pts.append((conc, statistics.median(values) if values else None, sum(row["errors"] for row in rows)))
                series.append((PEER_LABEL.get(peer, peer), colour, dash, pts))
            medians = f"medians of {rounds} rounds" if rounds > 1 else "one round"
            chart = line_chart(
                f"{name} vs concurrency: {scenario}",
                f"git {git}, {date} · {medians}{built} · loopback HTTP/1.1, server on one core",
                y_label.format(unit=unit, op=op),
                series,
                "scripts/bench_peers.sh; closed loop, so latency at high concurrency is queueing on the server's core",
            )
            if chart:
                path = out / f"load-{scenario}-{slug}.svg"
                path.write_text(chart)
                written.append(path)
    return written


def bucket_chart(data):
    """Stacked bars: one per (scenario, server), segments in the order of data['buckets']."""
    bars = data["profiles"]
    names = [n for n in data["buckets"] if any(b["buckets"].get(n) for b in bars)]
    if not bars:
        return None
    width = max(WIDTH, LEFT + RIGHT + 90 * len(bars) + 40)
    plot_w, plot_h = width - LEFT - RIGHT - 40, HEIGHT - TOP - BOTTOM - 10
    top = max(b["total"] for b in bars)
    step = 10 ** math.floor(math.log10(top / 4))
    step = next(m * step for m in (1, 2, 5, 10) if top / (m * step) <= 6)
    y_max = math.ceil(top / step) * step

    def py(v):
        return TOP + plot_h - v / y_max * plot_h

    body = [text(width / 2, 24, "Server instructions per operation, by bucket (callgrind)", 16, "middle", "bold"),
            text(width / 2, 44, f"git {data.get('git', '?')}, {data.get('date', '?')} · {data.get('ops', '?')} operations "
                 "over HTTP on one keep-alive connection · user space only (no kernel)", 11, "middle", fill="#555")]
    v = 0
    while v <= y_max:
        body.append(f'<line x1="{LEFT}" y1="{py(v):.1f}" x2="{LEFT + plot_w}" y2="{py(v):.1f}" stroke="#e5e5e5"/>')
        body.append(text(LEFT - 6, py(v) + 4, short_number(v), 11, "end"))
        v += step
    body.append(text(18, TOP + plot_h / 2, "instructions (Ir) per operation", 12, "middle",
                     extra=f'transform="rotate(-90 18 {TOP + plot_h / 2:.1f})"'))
    slot = plot_w / len(bars)
    bar_w = min(56, slot * 0.6)
    groups = {}
    for i, bar in enumerate(bars):
        groups.setdefault(bar["scenario"], []).append(i)
    for scenario, members in groups.items():
        centre = LEFT + slot * (members[0] + members[-1] + 1) / 2
        body.append(text(centre, TOP + plot_h + 32, bars[members[0]]["label"], 12, "middle", "bold"))
    for i, bar in enumerate(bars):
        x = LEFT + slot * i + (slot - bar_w) / 2
        base = 0
        for name in names:
            value = bar["buckets"].get(name, 0)
            if value <= 0:
                continue
            y0, y1 = py(base), py(base + value)
            colour = BUCKET_COLOURS[data["buckets"].index(name) % len(BUCKET_COLOURS)]
            body.append(f'<rect x="{x:.1f}" y="{y1:.1f}" width="{bar_w:.1f}" height="{y0 - y1:.1f}" '
                        f'fill="{colour}" stroke="white" stroke-width="0.5">'
                        f'<title>{escape(name)}: {value:,.0f}</title></rect>')
            if y0 - y1 >= 14:
                body.append(text(x + bar_w / 2, (y0 + y1) / 2 + 4, short_number(round(value / 100) * 100), 10, "middle", fill="white"))
            base += value
        body.append(text(x + bar_w / 2, py(bar["total"]) - 5, short_number(round(bar["total"] / 100) * 100), 11, "middle"))
        body.append(text(x + bar_w / 2, TOP + plot_h + 16, bar["server"], 11, "middle"))
    body.append(f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="#888"/>')
    lx = LEFT + plot_w + 24
    for j, name in reversed(list(enumerate(names))):
        ly = TOP + 10 + (len(names) - 1 - j) * 22
        colour = BUCKET_COLOURS[data["buckets"].index(name) % len(BUCKET_COLOURS)]
        body.append(f'<rect x="{lx}" y="{ly - 9}" width="14" height="14" fill="{colour}"/>')
        body.append(text(lx + 20, ly + 3, name, 11))
    body.append(text(LEFT, HEIGHT - 18, "scripts/profile.sh: each instruction goes to the innermost bucket on its call stack "
                     "(patterns in scripts/profile_buckets.py)", 10, fill="#777"))
    body.append(text(LEFT, HEIGHT - 6, "the floor is bare axum + serde_json: all it does is transport and its handler", 10, fill="#777"))
    return svg(body, width)


def buckets_charts(path, out):
    data = json.loads(path.read_text())
    chart = bucket_chart(data)
    if not chart:
        sys.exit(f"no profiles in {path}")
    out.mkdir(parents=True, exist_ok=True)
    target = out / "profile-buckets.svg"
    target.write_text(chart)
    return [target]


def main(argv):
    if len(argv) not in (2, 4) or argv[0] not in ("load", "buckets") or (len(argv) == 4 and argv[2] != "--out"):
        sys.exit(__doc__)
    source = Path(argv[1])
    if argv[0] == "load":
        written = load_charts(source, Path(argv[3]) if len(argv) == 4 else source / "charts")
    else:
        written = buckets_charts(source, Path(argv[3]) if len(argv) == 4 else source.parent)
    for path in written:
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
