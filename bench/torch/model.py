"""The PyTorch twin of arew's model (model/doc.go): same parameter names,
same (in, out) layouts, loads a Go-written checkpoint as is.

    python3 bench/torch/model.py CHECKPOINT.safetensors 3 1 4 1 5
        prints the logits (and values) of that token sequence
"""
import json
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import st


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        C, M, V, P = cfg["d_model"], cfg["mlp"], cfg["vocab"], cfg["context"]
        shapes = {"wte": (V, C), "wpe": (P, C), "ln_f.weight": (C,), "ln_f.bias": (C,)}
        for l in range(cfg["layers"]):
            h = f"h.{l}."
            shapes.update({h + "ln_1.weight": (C,), h + "ln_1.bias": (C,),
                           h + "attn.c_attn.weight": (C, 3 * C), h + "attn.c_attn.bias": (3 * C,),
                           h + "attn.c_proj.weight": (C, C), h + "attn.c_proj.bias": (C,),
                           h + "ln_2.weight": (C,), h + "ln_2.bias": (C,),
                           h + "mlp.c_fc.weight": (C, M), h + "mlp.c_fc.bias": (M,),
                           h + "mlp.c_proj.weight": (M, C), h + "mlp.c_proj.bias": (C,)})
        if cfg["lm_head"]:
            shapes["lm_head.weight"] = (C, V)
        if cfg["value_head"]:
            shapes.update({"value_head.weight": (C, 1), "value_head.bias": (1,)})
        # ParameterDict keys may not contain '.', so '.' is stored as '/'.
        self.p = nn.ParameterDict({k.replace(".", "/"): nn.Parameter(torch.zeros(s)) for k, s in shapes.items()})
        self.gelu = nn.GELU(approximate="tanh")

    def w(self, name):
        return self.p[name.replace(".", "/")]

    def named(self):
        """(Go name, parameter) pairs."""
        return [(k.replace("/", "."), v) for k, v in self.p.items()]

    def forward(self, ids):  # ids (B,T) → logits (B,T,V) or None, values (B,T) or None
        B, T = ids.shape
        C, H = self.cfg["d_model"], self.cfg["heads"]
        w = self.w
        ln = lambda x, n: F.layer_norm(x, (C,), w(n + ".weight"), w(n + ".bias"), 1e-5)
        x = w("wte")[ids] + w("wpe")[:T]
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        for l in range(self.cfg["layers"]):
            h = f"h.{l}."
            qkv = ln(x, h + "ln_1") @ w(h + "attn.c_attn.weight") + w(h + "attn.c_attn.bias")
            q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in qkv.split(C, dim=2))
            a = (q @ k.transpose(-2, -1)) / math.sqrt(C // H)
            a = a.masked_fill(~mask, float("-inf")).softmax(dim=-1)
            y = (a @ v).transpose(1, 2).reshape(B, T, C)
            x = x + y @ w(h + "attn.c_proj.weight") + w(h + "attn.c_proj.bias")
            f = self.gelu(ln(x, h + "ln_2") @ w(h + "mlp.c_fc.weight") + w(h + "mlp.c_fc.bias"))
            x = x + f @ w(h + "mlp.c_proj.weight") + w(h + "mlp.c_proj.bias")
        x = ln(x, "ln_f")
        logits = x @ w("lm_head.weight") if self.cfg["lm_head"] else None
        values = (x @ w("value_head.weight") + w("value_head.bias")).squeeze(-1) if self.cfg["value_head"] else None
        return logits, values


def load(path):
    """Builds the twin from a Go checkpoint (config in the metadata)."""
    tensors, meta = st.load(path)
    model = GPT(json.loads(meta["model_config"]))
    with torch.no_grad():
        for name, p in model.named():
            p.copy_(tensors[name])  # a missing name raises KeyError
    assert len(tensors) == len(model.named()), "extra tensors in the checkpoint"
    return model


if __name__ == "__main__":
    m = load(sys.argv[1])
    ids = torch.tensor([[int(a) for a in sys.argv[2:]]])
    logits, values = m(ids)
    print("logits", None if logits is None else logits[0].tolist())
    print("values", None if values is None else values[0].tolist())
