"""Times the training step of model.BenchmarkTrainStep in PyTorch: the same
network (bench/torch/model.py), batch, loss (masked mean of −logp) and
AdamW, on this machine's CPU.

    /usr/bin/python3 bench/torch_step.py --preset small --batch 16 --seq 128 --threads 1,2 --rounds 5

Each round runs every thread count in a fresh process (OPENBLAS_NUM_THREADS
and torch.set_num_threads set to it), so thread counts are interleaved;
per count it prints the median step time and tokens/s over the rounds
(each round: --warmup untimed steps, then the median of --steps timed
steps), and what torch ran on: the BLAS library it loaded, its CPU
capability and thread count (bench/torch/runtime.py).

A short warm-up and few steps overstate torch's time: its first steps
allocate and its thread pool settles (1 warm-up and 3 timed steps read
129-263 ms on a 2-core Zen 3 where 10 and 20 read 74-86 ms). Debian's
python3-torch calls the generic libblas.so.3; without OpenBLAS installed
(apt-get install libopenblas0-pthread) that is the reference BLAS, and
the step is many times slower than torch anywhere else: the line
"blas:" says which one ran.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

PRESETS = {"tiny": (32, 2, 2, 64), "small": (64, 2, 4, 256), "base": (128, 4, 4, 512)}
VOCAB, CONTEXT = 60, 256


def worker(args):
    import torch
    torch.set_num_threads(args.threads)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch"))
    import model as twin
    C, L, H, M = PRESETS[args.preset]
    cfg = dict(vocab=VOCAB, context=CONTEXT, d_model=C, layers=L, heads=H, mlp=M, init_std=0.02,
               lm_head=True, value_head=False)
    m = twin.GPT(cfg)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _, p in m.named():
            p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    B, T = args.batch, args.seq
    tokens = torch.randint(0, VOCAB, (B, T), generator=g)
    targets = torch.randint(0, VOCAB, (B, T), generator=g)
    mask = torch.ones(B, T)
    decay = [p for _, p in m.named() if p.dim() >= 2]
    rest = [p for _, p in m.named() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay}, {"params": rest, "weight_decay": 0.0}],
                            lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)

    def step():
        opt.zero_grad()
        logits, _ = m(tokens)
        logp = torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        loss = -(mask * logp).sum() / mask.sum()
        loss.backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    import runtime
    print(json.dumps({"threads": args.threads, "step_s": statistics.median(times), "runtime": runtime.describe()}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="small", choices=sorted(PRESETS))
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        return worker(args)
    counts = [int(t) for t in args.threads.split(",")]
    results = {t: [] for t in counts}
    runtimes = {}
    for _ in range(args.rounds):
        for t in counts:
            env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
            out = subprocess.run([sys.executable, __file__, "--worker", "--threads", str(t), "--preset", args.preset,
                                  "--batch", str(args.batch), "--seq", str(args.seq), "--warmup", str(args.warmup),
                                  "--steps", str(args.steps)],
                                 env=env, check=True, capture_output=True, text=True).stdout
            rec = json.loads(out.strip().splitlines()[-1])
            results[t].append(rec["step_s"])
            runtimes[t] = rec["runtime"]
    n = args.batch * args.seq
    rt = runtimes[counts[0]]
    print(f"torch {rt['torch']} on {rt['cpu']}: blas: {rt['blas']}; cpu capability {rt['cpu_capability']}; "
          f"{args.warmup} warm-up + {args.steps} timed steps per round")
    for t in counts:
        med = statistics.median(results[t])
        print(f"torch {args.preset} B={args.batch} T={args.seq} threads={t}: step {med * 1e3:.1f} ms (median of "
              f"{args.rounds}), {n / med:.0f} tokens/s; rounds {[round(x * 1e3, 1) for x in results[t]]}")


if __name__ == "__main__":
    main()
