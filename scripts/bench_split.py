#!/usr/bin/env python3
"""Where a server's CPU goes per operation, from a `perf record -g` of it under load and its
CPU time per operation: its handler (the application's POST handler and all it calls: for
ours the whole MCP layer, for the floor its JSON in and out), the rest of user space (hyper,
axum, tokio, the allocator: the transport), and the kernel; and, of the kernel's part, the
time spent with interrupts held off while waking the load generator (`_raw_spin_unlock_irqrestore`,
where a VM without a PMU lands the samples of a wake-up's IPI).

  bench_split.py PERF_DATA CPU_US_PER_OP HANDLER_REGEX

Prints one JSON object: {"cpu_us": …, "handler_us": …, "user_us": …, "kernel_us": …, "wake_us": …, "samples": …}.
"""
import json
import re
import subprocess
import sys

WAKE = "_raw_spin_unlock_irqrestore"


def main():
    data, cpu_us, handler = sys.argv[1], float(sys.argv[2]), re.compile(sys.argv[3])
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"],
                            check=True, capture_output=True, text=True).stdout
    counts = {"handler": 0, "user": 0, "kernel": 0, "wake": 0}
    total = 0
    for sample in script.split("\n\n"):
        frames = [line.strip() for line in sample.strip().splitlines() if line.strip()]
        if not frames:
            continue
        total += 1
        if "kernel.kallsyms" in frames[0]:
            counts["kernel"] += 1
            counts["wake"] += WAKE in frames[0]
        elif any(handler.search(frame) for frame in frames):
            counts["handler"] += 1
        else:
            counts["user"] += 1
    if total == 0:
        sys.exit(f"no samples in {data}")
    out = {f"{k}_us": round(cpu_us * v / total, 2) for k, v in counts.items()}
    out.update(cpu_us=round(cpu_us, 2), samples=total)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
