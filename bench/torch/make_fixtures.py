"""Writes the PyTorch oracle for model/twin_test.go, once (CI needs no torch).

    go test ./model -run TestWriteTwinWeights -update-twin   # Go writes the weights
    /usr/bin/python3 bench/torch/make_fixtures.py            # torch writes the answers

Reads model/testdata/twin_weights.safetensors (a tiny model with both heads
and far-from-init weights, written by Go's Model.Save: so this also proves
the twin loads a Go checkpoint), builds a right-padded batch, and writes
model/testdata/twin_fixtures.safetensors with: the batch (tokens, targets,
mask, returns), the weights as read ("param/<name>"), logits, values, the
loss, every gradient ("grad/<name>") and the losses of 10 AdamW steps on
that batch. The loss is model/loss_test.go's testLoss:

    L = −Σ mask·logp / Σ mask + value_coef · Σ mask·(v − ret)² / Σ mask
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as twin  # noqa: E402
import st  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WEIGHTS = os.path.join(ROOT, "model", "testdata", "twin_weights.safetensors")
OUT = os.path.join(ROOT, "model", "testdata", "twin_fixtures.safetensors")
B, T = 3, 10
VALUE_COEF = 0.5
ADAMW = dict(lr=1e-2, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
STEPS = 10


def loss_fn(m, tokens, targets, mask, returns):
    logits, values = m(tokens)
    logp = torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    n = mask.sum()
    return -(mask * logp).sum() / n + VALUE_COEF * (mask * (values - returns) ** 2).sum() / n, logits, values


def main():
    torch.manual_seed(0)
    m = twin.load(WEIGHTS)
    V = m.cfg["vocab"]
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, V, (B, T), generator=g)
    targets = torch.randint(0, V, (B, T), generator=g)
    mask = torch.ones(B, T)
    mask[1, 7:] = 0  # right padding of 3 and 5 positions
    mask[2, 5:] = 0
    returns = torch.randn(B, T, generator=g)

    out = {"tokens": tokens.int(), "targets": targets.int(), "mask": mask, "returns": returns}
    out.update({"param/" + k: p.detach().clone() for k, p in m.named()})
    loss, logits, values = loss_fn(m, tokens, targets, mask, returns)
    loss.backward()
    out.update({"logits": logits.detach().reshape(B * T, V), "values": values.detach().reshape(B * T),
                "loss": loss.detach().reshape(1)})
    out.update({"grad/" + k: p.grad.detach().clone() for k, p in m.named()})

    # AdamW as optim.AdamW's default: decay on ≥ 2-D parameters only.
    decay = [p for _, p in m.named() if p.dim() >= 2]
    rest = [p for _, p in m.named() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay}, {"params": rest, "weight_decay": 0.0}], **ADAMW)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss, _, _ = loss_fn(m, tokens, targets, mask, returns)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    out["adamw_losses"] = torch.tensor(losses)
    meta = {"value_coef": VALUE_COEF, "lr": ADAMW["lr"], "beta1": ADAMW["betas"][0], "beta2": ADAMW["betas"][1],
            "eps": ADAMW["eps"], "weight_decay": ADAMW["weight_decay"], "torch": torch.__version__}
    st.save(OUT, out, meta)
    print("loss", out["loss"].item(), "adamw losses", losses)


if __name__ == "__main__":
    main()
