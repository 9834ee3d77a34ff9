"""PyTorch twin of package cuda's benchmarks, and the side-by-side table.

Runs on the GPU machine after the Go benchmarks (run.sh): the token log-prob
as log_softmax + gather, forward and backward, and the AREW margin correction
(step and step_spread modes, added to an advantage buffer) as torch ops, at
the shapes of cuda/bench_test.go, timed with CUDA events (median of --reps
runs of --iters iterations). It reads the Go figures from the benchmark output
(--go) and prints one markdown table: time per op of version 1 and of the
fastest later version, GB/s with the Go benchmark's byte counts, the fraction
of the copy bandwidth (Go's copy kernel; torch's own copy_ is printed beside
it), and the fastest Go version's speed-up over torch.

    python3 torch_twin.py --go go_bench.txt            # on the GPU
    python3 torch_twin.py --device cpu --small         # a smoke test anywhere
"""

import argparse
import statistics

import torch

from gobench import fastest, read_go


def timed(fn, iters, reps, device):
    """Median seconds per call of fn over reps runs of iters calls."""
    fn()
    out = []
    for _ in range(reps):
        if device == "cuda":
            torch.cuda.synchronize()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(iters):
                fn()
            b.record()
            torch.cuda.synchronize()
            out.append(a.elapsed_time(b) / 1e3 / iters)
        else:
            import time
            t = time.perf_counter()
            for _ in range(iters):
                fn()
            out.append((time.perf_counter() - t) / iters)
    return statistics.median(out)


# ---------------------------------------------------------------- log-prob

def logprob_ops(n, v, device, seed=1):
    """fwd, bwd and fwdbwd closures at (n, v), as BenchmarkTokenLogProb."""
    gen = torch.Generator(device=device).manual_seed(seed)
    z = (torch.rand(n, v, device=device, generator=gen) * 16 - 8).requires_grad_(True)
    y = torch.randint(0, v, (n,), device=device, generator=gen)
    g = torch.rand(n, device=device, generator=gen) * 2 - 1

    def fwd():
        with torch.no_grad():
            return torch.log_softmax(z, dim=-1).gather(1, y[:, None]).squeeze(1)

    def fwdbwd():
        z.grad = None  # a fresh dlogits per step, as the Go benchmark overwrites its own
        logp = torch.log_softmax(z, dim=-1).gather(1, y[:, None]).squeeze(1)
        logp.backward(g)

    return {"fwd": fwd, "fwdbwd": fwdbwd}


# ---------------------------------------------------------------- margin

def advantage_batch(b, device):
    """cuda/bench_test.go's advantageBatch: b trajectories of 256 tokens, a
    32-token prompt, then 8 turns of a 16-token agent step and a 12-token
    reply; critiques +1, -1, 0 in turn (shifted by the trajectory index)."""
    traj = torch.arange(b)
    k = torch.arange(8)
    start = (traj[:, None] * 256 + 32 + k[None, :] * 28).reshape(-1)
    end = start + 16
    crit = torch.tensor([1, -1, 0])[(k[None, :] + traj[:, None]) % 3].reshape(-1)
    mask = torch.zeros(b * 256, dtype=torch.uint8)
    for j in range(16):
        mask[start + j] = 1
    return {
        "b": b, "t": b * 256, "s": b * 8,
        "mask": mask.to(device), "start": start.to(device), "end": end.to(device),
        "crit": crit.to(device), "step_traj": traj.repeat_interleave(8).to(device),
        "total": int((end - start).sum()),
    }


def margin_op(batch, mode, lam, out):
    """out += lam*u (kernels.MarginCorrectionRef, accumulate) as torch ops:
    per-token step ids by repeat_interleave (its output size given, as the
    layout is known on the host), agent tokens per step by scatter_add, the
    per-trajectory counts by scatter_add, the weights, then one scatter_add
    of lam*u into out."""
    b, s = batch["b"], batch["s"]
    start, end, crit, mask, st = batch["start"], batch["end"], batch["crit"], batch["mask"], batch["step_traj"]
    lens = end - start
    total = batch["total"]
    step_of_tok = torch.repeat_interleave(torch.arange(s, device=start.device), lens, output_size=total)
    first = torch.repeat_interleave(start - torch.cumsum(lens, 0) + lens, lens, output_size=total)
    tok = first + torch.arange(total, device=start.device)
    m = mask[tok].to(torch.float64)
    n_s = torch.zeros(s, dtype=torch.float64, device=start.device).scatter_add_(0, step_of_tok, m)
    pos = ((crit > 0) & (n_s > 0)).to(torch.float64)
    neg = ((crit < 0) & (n_s > 0)).to(torch.float64)
    zeros = torch.zeros(b, dtype=torch.float64, device=start.device)
    n_pos = zeros.clone().scatter_add_(0, st, pos)
    n_neg = zeros.clone().scatter_add_(0, st, neg)
    both = (n_pos > 0) & (n_neg > 0)
    w = torch.where(pos > 0, 1 / n_pos.clamp(min=1)[st], -1 / n_neg.clamp(min=1)[st])
    w = torch.where((pos + neg > 0) & both[st], w, torch.zeros_like(w))
    if mode == "step_spread":
        w = w / n_s.clamp(min=1)
    u = (lam * w)[step_of_tok] * m
    out.index_add_(0, tok, u.to(out.dtype))


def margin_check(device):
    """Two trajectories by hand: step mode, lambda 1."""
    batch = advantage_batch(2, device)
    out = torch.zeros(batch["t"], device=device)
    margin_op(batch, "step", 1.0, out)
    # trajectory 0: critiques + - 0 + - 0 + -: |P| = 3, |N| = 3
    got = out[32:32 + 16].tolist()
    assert all(abs(x - 1 / 3) < 1e-6 for x in got), got
    assert abs(out[:256].sum().item()) < 1e-4


# ---------------------------------------------------------------- table

def fmt_ms(s):
    return "–" if s is None else f"{s * 1e3:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--go", help="go test -bench output of cuda.test")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--small", action="store_true", help="small shapes only (smoke test)")
    a = ap.parse_args()
    dev = a.device
    go = read_go(a.go)
    copy_go = next((r["copy_GB/s"] for r in go.values() if "copy_GB/s" in r), None)

    # torch's own copy bandwidth on 1 GiB (256 MiB for --small)
    nbytes = (1 << 28) if a.small else (1 << 30)
    src = torch.empty(nbytes // 4, device=dev)
    dst = torch.empty_like(src)
    t = timed(lambda: dst.copy_(src), a.iters, a.reps, dev)
    copy_torch = 2 * nbytes / t / 1e9
    del src, dst

    print(f"device: {torch.cuda.get_device_name() if dev == 'cuda' else dev}; "
          f"copy bandwidth: Go copy kernel {copy_go or float('nan'):.0f} GB/s, torch copy_ {copy_torch:.0f} GB/s\n")
    print("| op | shape | Go v1 ms | Go fastest ms | torch ms | fastest GB/s | fastest copy_frac | torch / fastest | target |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")

    shapes = [(2048, 128)] if a.small else [(2048, 128), (4096, 32768), (32768, 32768)]
    for n, v in shapes:
        ops = logprob_ops(n, v, dev)
        for op, nbytes_op in (("fwd", 4 * n * v), ("fwdbwd", 12 * n * v)):
            ts = timed(ops[op], a.iters, a.reps, dev)
            g1 = go.get(f"TokenLogProb/{op}/v1/{n}x{v}", {}).get("s")
            g2r = go.get(f"TokenLogProb/{op}/v2/{n}x{v}", {})
            g2 = g2r.get("s")
            target = ""
            if op == "fwdbwd" and (n, v) == (32768, 32768):
                target = "≥ 0.80 copy, ≥ 2× torch"
            print(f"| logprob {op} | {n}×{v} | {fmt_ms(g1)} | {fmt_ms(g2)} | {fmt_ms(ts)} | "
                  f"{g2r.get('GB/s', float('nan')):.0f} | {g2r.get('copy_frac', float('nan')):.2f} | "
                  f"{(ts / g2) if g2 else float('nan'):.2f} | {target} |")
        del ops
        if dev == "cuda":
            torch.cuda.empty_cache()

    margin_check(dev)
    nb = 64 if a.small else 4096
    batch = advantage_batch(nb, dev)
    out = torch.zeros(batch["t"], device=dev)
    for mode in ("step", "step_spread"):
        ts = timed(lambda: margin_op(batch, mode, 0.5, out), a.iters, a.reps, dev)
        g1 = go.get(f"Margin/v1/{mode}/acc=true/{nb}x256", {}).get("s")
        g2r = fastest(go, "Margin/v{}/" + f"{mode}/acc=true/{nb}x256")
        g2 = g2r.get("s")
        print(f"| margin {mode} (+=) | {nb}×256 tokens | {fmt_ms(g1)} | {fmt_ms(g2)} | {fmt_ms(ts)} | "
              f"{g2r.get('GB/s', float('nan')):.0f} | {g2r.get('copy_frac', float('nan')):.2f} | "
              f"{(ts / g2) if g2 else float('nan'):.2f} | ≥ 0.50 copy, ≥ 5× torch |")

    print("\nOther Go benchmarks (no torch twin):\n")
    print("| benchmark | ms | GB/s | copy_frac |")
    print("|---|---:|---:|---:|")
    for name, r in go.items():
        if name.startswith(("GAE", "GroupBaseline", "Copy", "TokenLogProb/bwd", "TokenLogProb/fwdbwd_inplace", "Margin")):
            print(f"| {name} | {r['s'] * 1e3:.3f} | {r.get('GB/s', float('nan')):.0f} | {r.get('copy_frac', float('nan')):.2f} |")


if __name__ == "__main__":
    main()
