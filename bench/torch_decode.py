"""Times KV-cache decoding in PyTorch the way model.BenchmarkDecode does
in Go: the same network (bench/torch/model.py's weights and layout),
`seqs` sequences in lockstep, a 16-token prompt each (prefilled untimed),
then one sampled token per sequence per step up to position 144, each
step a forward of one new position per sequence over a preallocated key
and value cache, and a temperature-1 sample per row.

    /usr/bin/python3 bench/torch_decode.py --preset small --seqs 1,16,64 --threads 1,2 --rounds 3

Each round runs every (thread count, seqs) in a fresh process
(OPENBLAS_NUM_THREADS and torch.set_num_threads set to it); it prints per
pair the median tokens/s over the rounds.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

PRESETS = {"tiny": (32, 2, 2, 64), "small": (64, 2, 4, 256), "base": (128, 4, 4, 512)}
VOCAB, CONTEXT, PROMPT, END = 60, 256, 16, 144


def worker(args):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(args.threads)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch"))
    import model as twin
    C, L, H, M = PRESETS[args.preset]
    hd = C // H
    cfg = dict(vocab=VOCAB, context=CONTEXT, d_model=C, layers=L, heads=H, mlp=M, init_std=0.02,
               lm_head=True, value_head=False)
    m = twin.GPT(cfg)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _, p in m.named():
            p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    w = m.w
    S = args.seqs
    kc = torch.zeros(L, S, H, CONTEXT, hd)
    vc = torch.zeros(L, S, H, CONTEXT, hd)
    gelu = torch.nn.GELU(approximate="tanh")
    ln = lambda x, n: F.layer_norm(x, (C,), w(n + ".weight"), w(n + ".bias"), 1e-5)

    def step(tok, pos):  # tok (S,) at position pos → logits (S, V)
        x = w("wte")[tok] + w("wpe")[pos]
        for l in range(L):
            h = f"h.{l}."
            qkv = ln(x, h + "ln_1") @ w(h + "attn.c_attn.weight") + w(h + "attn.c_attn.bias")
            q, k, v = (t.view(S, H, hd) for t in qkv.split(C, dim=1))
            kc[l, :, :, pos] = k
            vc[l, :, :, pos] = v
            a = (kc[l, :, :, :pos + 1] @ q.unsqueeze(-1)).squeeze(-1) / math.sqrt(hd)  # (S, H, pos+1)
            y = (a.softmax(dim=-1).unsqueeze(-2) @ vc[l, :, :, :pos + 1]).reshape(S, C)
            x = x + y @ w(h + "attn.c_proj.weight") + w(h + "attn.c_proj.bias")
            f = gelu(ln(x, h + "ln_2") @ w(h + "mlp.c_fc.weight") + w(h + "mlp.c_fc.bias"))
            x = x + f @ w(h + "mlp.c_proj.weight") + w(h + "mlp.c_proj.bias")
        return ln(x, "ln_f") @ w("lm_head.weight")

    with torch.no_grad():
        prompts = torch.randint(0, VOCAB, (S, PROMPT), generator=g)
        for pos in range(PROMPT):
            logits = step(prompts[:, pos], pos)
        t0 = time.perf_counter()
        for pos in range(PROMPT, END):
            tok = torch.multinomial(logits.softmax(dim=-1), 1, generator=g).squeeze(-1)
            logits = step(tok, pos)
        dt = time.perf_counter() - t0
    print(json.dumps({"tokens_per_s": S * (END - PROMPT) / dt}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="small", choices=sorted(PRESETS))
    ap.add_argument("--seqs", default="1,16,64")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.threads, args.seqs = int(args.threads), int(args.seqs)
        return worker(args)
    pairs = [(int(t), int(s)) for t in args.threads.split(",") for s in args.seqs.split(",")]
    results = {p: [] for p in pairs}
    for _ in range(args.rounds):
        for t, s in pairs:
            env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
            out = subprocess.run([sys.executable, __file__, "--worker", "--threads", str(t), "--seqs", str(s),
                                  "--preset", args.preset], env=env, check=True, capture_output=True, text=True).stdout
            results[(t, s)].append(json.loads(out.strip().splitlines()[-1])["tokens_per_s"])
    for t, s in pairs:
        print(f"torch decode {args.preset} seqs={s} threads={t}: {statistics.median(results[(t, s)]):.0f} tokens/s "
              f"(median of {args.rounds})")


if __name__ == "__main__":
    main()
