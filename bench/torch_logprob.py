"""PyTorch baseline for kernels.BenchmarkTokenLogProb.

The same op as the Go benchmark: token log-probs logp[i] = log_softmax(z)[i, y[i]]
by log_softmax + gather, then the backward of sum(g * logp) into the logits,
for N x V in 2048x128, 4096x128, 4096x1024, 4096x32768, at a given thread
count. It prints ms/iter (median over --reps repetitions of --iters
iterations) and MB/s with the Go benchmark's byte count, 12*N*V + 24*N (see
kernels/logprob_bench_test.go), as a table. The gradient buffer is reset to
None before each backward (PyTorch's default zero_grad(set_to_none=True)), so
each iteration writes a fresh dlogits, as the Go benchmark overwrites its own.

Run with Debian's PyTorch and OpenBLAS at the same thread count as Go's
GOMAXPROCS:

    OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/torch_logprob.py --threads 2
"""

import argparse
import statistics
import time

import torch

SIZES = [(2048, 128), (4096, 128), (4096, 1024), (4096, 32768)]


def step(z, y, g):
    """One forward (log_softmax + gather) and backward into z.grad."""
    z.grad = None
    logp = torch.log_softmax(z, dim=-1).gather(1, y[:, None]).squeeze(1)
    logp.backward(g)


def bench(n, v, iters, reps):
    """Median seconds per iteration over reps timed repetitions."""
    gen = torch.Generator().manual_seed(n * v)
    z = (2 * torch.randn(n, v, generator=gen)).requires_grad_(True)
    y = torch.randint(0, v, (n,), generator=gen)
    g = torch.ones(n)
    for _ in range(2):  # warm up: allocator, thread pool
        step(z, y, g)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            step(z, y, g)
        times.append((time.perf_counter() - t0) / iters)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--budget", type=float, default=0.2,
                    help="seconds per repetition (sets the iteration count)")
    ap.add_argument("--sizes", default="",
                    help="comma-separated NxV to run (default: all)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    sizes = SIZES
    if args.sizes:
        sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]

    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(f"{'size':>12} {'ms/iter':>10} {'MB/s':>10}")
    for n, v in sizes:
        # One untimed call to size the repetitions to about --budget seconds.
        t0 = time.perf_counter()
        bench(n, v, 1, 1)
        once = time.perf_counter() - t0
        iters = max(1, int(args.budget / max(once / 3, 1e-6)))
        sec = bench(n, v, iters, args.reps)
        mb = (12 * n * v + 24 * n) / sec / 1e6
        print(f"{f'{n}x{v}':>12} {sec * 1e3:>10.3f} {mb:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
