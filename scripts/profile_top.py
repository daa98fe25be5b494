#!/usr/bin/env python3
"""The top functions of callgrind profiles, per operation.

  profile_top.py OPS OUT              Ir per op of one dump that covers exactly OPS operations
  profile_top.py OPS OUT_A OUT_B      the difference B - A of two runs that differ by OPS operations

Prints the total Ir per op, then the top functions by inclusive and by exclusive Ir per op.
"""
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*?)\s*$")


def costs(path, inclusive):
    out = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", "--show-percs=no",
         f"--inclusive={'yes' if inclusive else 'no'}", path],
        check=True, capture_output=True, text=True).stdout
    total, table = 0, {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        ir, what = int(m.group(1).replace(",", "")), m.group(2)
        if what.startswith("PROGRAM TOTALS"):
            total = ir
        elif ":" in what or "[" in what:
            # "file:function [object]": keep the function, wherever it was compiled from.
            name = re.sub(r"\s*\[[^\]]*\]$", "", what)
            name = name.split(":", 1)[1] if ":" in name and not name.startswith("<") else name
            table[name] = table.get(name, 0) + ir
    return total, table


def short(name, width=110):
    name = re.sub(r"::h[0-9a-f]{16}$", "", name)
    return name if len(name) <= width else name[: width - 1] + "…"


def main():
    ops = int(sys.argv[1])
    files = sys.argv[2:]
    top = 25
    for inclusive in (True, False):
        runs = [costs(f, inclusive) for f in files]
        if len(runs) == 1:
            total, table = runs[0]
        else:
            (ta, a), (tb, b) = runs
            total = tb - ta
            table = {k: b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b)}
        # The frames around everything (the threads, the runtime) say nothing; a dump taken
        # while they run also books their inclusive cost as their own.
        table = {k: v for k, v in table.items() if v < 0.95 * total}
        ranked = sorted(table.items(), key=lambda kv: -kv[1])
        if inclusive:
            print(f"total: {total / ops:,.0f} Ir per op ({ops} ops)")
            print(f"\ntop {top} of the runtime's own functions by inclusive Ir per op:")
            ours = [kv for kv in ranked if "mcp_runtime::" in kv[0] or "__mcp" in kv[0]]
            for name, ir in ours[:top]:
                print(f"  {ir / ops:>10,.0f}  {short(name)}")
        print(f"\ntop {top} by {'inclusive' if inclusive else 'exclusive'} Ir per op:")
        for name, ir in ranked[:top]:
            print(f"  {ir / ops:>10,.0f}  {short(name)}")


if __name__ == "__main__":
    main()
