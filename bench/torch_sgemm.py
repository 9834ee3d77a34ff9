"""PyTorch torch.mm on the shapes of kernels.BenchmarkSgemm, for scale.

Run with Debian's torch (OpenBLAS when libopenblas0-pthread is installed):

    OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/torch_sgemm.py --threads 2

Shapes are m x k x n, as in the Go benchmark names; "_tA"/"_tB" multiply by a
transposed view (torch passes it to BLAS as a transpose flag, no copy). The
machine is shared, so every shape is timed once per round, rounds are
interleaved, and the median (with min and max) over rounds is printed.
"""

import argparse
import statistics
import time

import torch

SHAPES = [  # (m, k, n, transA, transB), as in kernels/sgemm_bench_test.go
    (2048, 64, 192, False, False),
    (2048, 64, 256, False, False),
    (2048, 256, 64, False, False),
    (2048, 64, 64, False, False),
    (2048, 64, 128, False, False),
    (64, 64, 192, False, False),
    (2048, 192, 64, False, True),
    (64, 2048, 192, True, False),
    (512, 512, 512, False, False),
    (1, 64, 192, False, False),
    (2048, 64, 1, False, False),
]


def name(m, k, n, ta, tb):
    return f"{m}x{k}x{n}" + ("_tA" if ta else "") + ("_tB" if tb else "")


def time_once(a, b, out, seconds):
    """GFLOP/s of torch.mm(a, b, out=out), repeated for about `seconds`."""
    m, k = a.shape
    n = b.shape[1]
    t0 = time.perf_counter()
    torch.mm(a, b, out=out)  # warm up, and size the loop
    iters = max(1, int(seconds / max(time.perf_counter() - t0, 1e-7)))
    t0 = time.perf_counter()
    for _ in range(iters):
        torch.mm(a, b, out=out)
    elapsed = time.perf_counter() - t0
    return 2.0 * m * n * k * iters / elapsed / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(1)
    cases = []
    for m, k, n, ta, tb in SHAPES:
        a = torch.rand(k, m, generator=gen).t() if ta else torch.rand(m, k, generator=gen)
        b = torch.rand(n, k, generator=gen).t() if tb else torch.rand(k, n, generator=gen)
        cases.append((name(m, k, n, ta, tb), a, b, torch.empty(m, n)))
    results = {c[0]: [] for c in cases}
    for _ in range(args.rounds):
        for nm, a, b, out in cases:
            results[nm].append(time_once(a, b, out, args.seconds))
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"{args.rounds} interleaved rounds of {args.seconds}s")
    print(f"{'shape':<20} {'median GFLOP/s':>15} {'min':>8} {'max':>8}")
    for nm, _, _, _ in cases:
        r = results[nm]
        print(f"{nm:<20} {statistics.median(r):>15.1f} {min(r):>8.1f} {max(r):>8.1f}")


if __name__ == "__main__":
    main()
