"""Interleaved Go vs PyTorch comparison of the training step and of
KV-cache decoding, read against this machine's FMA peak.

Builds the model and bench test binaries once, then for --rounds rounds
runs, one after the other, each as a fresh process: BenchmarkPeakFMA
(avx512, or avx2 where the CPU lacks it) at the Go thread count,
model.BenchmarkTrainStep and model.BenchmarkDecode at GOMAXPROCS=--threads,
and bench/torch_step.py and bench/torch_decode.py at every thread count in
--torch-threads. It prints the medians over rounds as two tables:

    step:   preset/B/T, Go ms, Go GFLOP/s and % of peak (stepFLOPs, the
            products only), PyTorch ms at its best thread count, Go/torch
    decode: preset/seqs, Go tokens/s, PyTorch tokens/s at its best thread
            count, Go/torch

Run from the repository root (on a shared machine expect many minutes):

    /usr/bin/python3 bench/compare_step.py --threads 2 --torch-threads 1,2 --rounds 3
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

STEPS = [("small", 16, 128), ("small", 32, 256), ("base", 16, 128), ("base", 32, 256)]
DECODES = [("small", 1), ("small", 16), ("small", 64), ("base", 64)]
GO_LINE = re.compile(r"^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$")
METRIC = re.compile(r"([\d.]+) (\S+)")
TORCH_STEP = re.compile(r"threads=(\d+): step ([\d.]+) ms")
TORCH_RUNTIME = re.compile(r"^torch \S+ on .*$", re.M)
TORCH_DECODE = re.compile(r"seqs=(\d+) threads=(\d+): ([\d.]+) tokens/s")


def run(cmd, env, cwd=None):
    return subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2, help="GOMAXPROCS for the Go benchmarks")
    ap.add_argument("--torch-threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, GOMAXPROCS=str(args.threads))
    tmp = tempfile.mkdtemp(prefix="compare_step")
    mbin, bbin = os.path.join(tmp, "model.test"), os.path.join(tmp, "bench.test")
    subprocess.run(["go", "test", "-c", "-o", mbin, "./model/"], cwd=root, check=True)
    subprocess.run(["go", "test", "-c", "-o", bbin, "./bench/"], cwd=root, check=True)
    samples = {}
    torch_runtime = []  # torch_step.py's line naming its BLAS, CPU capability and steps

    def add(key, v):
        samples.setdefault(key, []).append(v)

    for r in range(args.rounds):
        out = run([bbin, "-test.run", "^$", "-test.bench", f"PeakFMA/.*/threads={args.threads}$",
                   "-test.benchtime", "200x"], env)
        out += run([mbin, "-test.run", "^$", "-test.bench", "TrainStep/", "-test.benchtime", "20x"], env, cwd=tmp)
        out += run([mbin, "-test.run", "^$", "-test.bench", "Decode/", "-test.benchtime", "256x"], env, cwd=tmp)
        for line in out.splitlines():
            m = GO_LINE.match(line)
            if not m:
                continue
            name, ns = m.group(1), float(m.group(2))
            metrics = {unit: float(v) for v, unit in METRIC.findall(m.group(3))}
            add(("go", name), (ns, metrics))
        for preset, B, T in STEPS:
            out = run(["/usr/bin/python3", os.path.join(root, "bench", "torch_step.py"), "--preset", preset,
                       "--batch", str(B), "--seq", str(T), "--threads", args.torch_threads, "--rounds", "1"], env)
            for m in TORCH_RUNTIME.finditer(out):
                torch_runtime.append(m.group(0))
            for m in TORCH_STEP.finditer(out):
                add(("torch_step", preset, B, T, int(m.group(1))), float(m.group(2)))
        for preset in sorted({p for p, _ in DECODES}):
            seqs = ",".join(str(s) for p, s in DECODES if p == preset)
            out = run(["/usr/bin/python3", os.path.join(root, "bench", "torch_decode.py"), "--preset", preset,
                       "--seqs", seqs, "--threads", args.torch_threads, "--rounds", "1"], env)
            for m in TORCH_DECODE.finditer(out):
                add(("torch_decode", preset, int(m.group(1)), int(m.group(2))), float(m.group(3)))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)

    med = lambda xs: statistics.median(xs)
    peaks = {k[1]: med([s[1]["GFLOP/s"] for s in v]) for k, v in samples.items() if k[1].startswith("PeakFMA")}
    peak = peaks.get(f"PeakFMA/avx512/threads={args.threads}") or peaks.get(f"PeakFMA/avx2/threads={args.threads}")
    tthreads = [int(t) for t in args.torch_threads.split(",")]
    print(f"Go GOMAXPROCS {args.threads}, torch threads {args.torch_threads}, {args.rounds} rounds, medians; "
          + ", ".join(f"{k} {v:.0f} GFLOP/s" for k, v in sorted(peaks.items())))
    print(torch_runtime[-1] if torch_runtime else "torch runtime: not reported")
    print(f"{'step':>22} | {'Go ms':>8} {'GFLOP/s':>8} {'%peak':>6} | {'torch ms':>8} (thr) | Go/torch")
    for preset, B, T in STEPS:
        go = samples.get(("go", f"TrainStep/{preset}/B={B}/T={T}"))
        tor = [(med(samples[k]), k[4]) for k in samples if k[:4] == ("torch_step", preset, B, T)]
        if not go or not tor:
            continue
        ms, gf = med([s[0] for s in go]) / 1e6, med([s[1]["GFLOP/s"] for s in go])
        tms, tt = min(tor)
        pct = f"{100 * gf / peak:>6.1f}" if peak else f"{'-':>6}"
        print(f"{preset + f' B={B} T={T}':>22} | {ms:>8.1f} {gf:>8.1f} {pct} | {tms:>8.1f} ({tt:>2})  | {ms / tms:>6.2f}")
    print(f"{'decode':>22} | {'Go tok/s':>10} | {'torch tok/s':>11} (thr) | Go/torch")
    for preset, seqs in DECODES:
        go = samples.get(("go", f"Decode/{preset}/seqs={seqs}"))
        tor = [(med(samples[k]), k[3]) for k in samples if k[:3] == ("torch_decode", preset, seqs)]
        if not go or not tor:
            continue
        gt = med([s[1]["tokens/s"] for s in go])
        tt, th = max(tor)
        print(f"{preset + f' seqs={seqs}':>22} | {gt:>10.0f} | {tt:>11.0f} ({th:>2})  | {gt / tt:>6.2f}")


if __name__ == "__main__":
    main()
