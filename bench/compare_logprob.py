"""Interleaved Go vs PyTorch comparison of the fused token log-prob.

Builds the kernels and bench test binaries once, then for --rounds rounds
runs, one after the other: the Go benchmarks (BenchmarkTokenLogProb, the
reference, and BenchmarkStreamCopy for the machine's copy bandwidth) and
bench/torch_logprob.py, each as a fresh process at the same thread count.
It prints the median over rounds of each figure, as a table:

    size, then for fast / ref / torch: ms per forward+backward, MB/s (bytes
    as in kernels/logprob_bench_test.go), fraction of copy bandwidth; and
    torch ms / fast ms.

Run from the repository root (on a shared machine expect minutes):

    OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/compare_logprob.py --threads 2 --rounds 5
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

GO_LINE = re.compile(r"^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) MB/s")
TORCH_LINE = re.compile(r"^\s*(\d+x\d+)\s+([\d.]+)\s+([\d.]+)\s*$")


def run(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    return out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--benchtime", default="200ms")
    args = ap.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, GOMAXPROCS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    tmp = tempfile.mkdtemp(prefix="compare_logprob")
    kbin, bbin = os.path.join(tmp, "kernels.test"), os.path.join(tmp, "bench.test")
    subprocess.run(["go", "test", "-c", "-o", kbin, "./kernels/"], cwd=root, check=True)
    subprocess.run(["go", "test", "-c", "-o", bbin, "./bench/"], cwd=root, check=True)

    samples = {}  # (impl, size) -> list of (ms, MB/s)

    def add(key, ms, mbs):
        samples.setdefault(key, []).append((ms, mbs))

    for r in range(args.rounds):
        out = run([bbin, "-test.run", "^$", "-test.bench", "StreamCopy", "-test.benchtime", args.benchtime], env)
        out += run([kbin, "-test.run", "^$", "-test.bench", "TokenLogProb(Ref)?$", "-test.benchtime", args.benchtime], env)
        for line in out.splitlines():
            m = GO_LINE.match(line)
            if m:
                name, ns, mbs = m.group(1), float(m.group(2)), float(m.group(3))
                impl, _, size = name.partition("/")
                add((impl, size), ns / 1e6, mbs)
        out = run(["/usr/bin/python3", os.path.join(root, "bench", "torch_logprob.py"),
                   "--threads", str(args.threads), "--reps", "3"], env)
        for line in out.splitlines():
            m = TORCH_LINE.match(line)
            if m:
                add(("torch", m.group(1)), float(m.group(2)), float(m.group(3)))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)

    def med(key):
        if key not in samples:
            return None
        return (statistics.median(s[0] for s in samples[key]), statistics.median(s[1] for s in samples[key]))

    copy = {k[1]: med(k) for k in samples if k[0] == "StreamCopy"}
    copy_mbs = copy.get(f"threads={args.threads}", (0, 0))[1]
    print(f"threads {args.threads}, rounds {args.rounds}, medians; copy bandwidth "
          + ", ".join(f"{k}: {v[1]:.0f} MB/s" for k, v in sorted(copy.items())))
    hdr = f"{'size':>11} |" + "|".join(f"{impl:^26}" for impl in ("fast (Go)", "ref (Go)", "torch")) + "| torch/fast"
    print(hdr)
    print(f"{'':>11} |" + "|".join(f"{'ms':>8} {'MB/s':>8} {'copy':>6}  " for _ in range(3)) + "|")
    for size in ("2048x128", "4096x128", "4096x1024", "4096x32768"):
        cells, fast_ms, torch_ms = [], None, None
        for impl in ("TokenLogProb", "TokenLogProbRef", "torch"):
            m = med((impl, size))
            if m is None:
                cells.append(f"{'-':>8} {'-':>8} {'-':>6}  ")
                continue
            cells.append(f"{m[0]:>8.3f} {m[1]:>8.0f} {m[1] / copy_mbs:>6.2f}  ")
            if impl == "TokenLogProb":
                fast_ms = m[0]
            if impl == "torch":
                torch_ms = m[0]
        ratio = f"{torch_ms / fast_ms:>8.2f}" if fast_ms and torch_ms else ""
        print(f"{size:>11} |" + "|".join(cells) + "|" + ratio)


if __name__ == "__main__":
    main()
