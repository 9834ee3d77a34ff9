"""Reading `go test -bench` output of package cuda (standard library only,
so that summarize.py runs where PyTorch is not installed)."""

import re

GO_LINE = re.compile(r"^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$")


def read_go(path):
    """name -> {"s": seconds per op, metric: value} from go test -bench output
    (any other lines in the file are skipped)."""
    rows = {}
    if not path:
        return rows
    for line in open(path):
        m = GO_LINE.match(line.strip())
        if not m:
            continue
        rec = {"s": float(m.group(2)) / 1e9}
        for val, unit in re.findall(r"([\d.e+-]+) (\S+)", m.group(3)):
            rec[unit] = float(val)
        rows[m.group(1)] = rec
    return rows


def fastest(go, fmt, versions=(2, 3)):
    """The fastest of the Go rows fmt.format(v) over versions, with its
    version under "v", or {}."""
    rows = [dict(go[fmt.format(v)], v=v) for v in versions if fmt.format(v) in go]
    return min(rows, key=lambda r: r["s"]) if rows else {}
