# Writes verl_oracle.json: verl's own loss functions, run under torch
# autograd in float64 on a small padded batch, with their values, metrics
# and gradients. The functions are loaded by name from a verl checkout at
# run time (nothing of verl is copied here); TestMatchesVerlOracle compares
# package optim against the file, so CI needs neither verl nor torch.
#
#   git -C VERL show HEAD:verl/trainer/ppo/core_algos.py > core_algos.py
#   git -C VERL show HEAD:verl/utils/torch_functional.py > torch_functional.py
#   OPENBLAS_NUM_THREADS=1 /usr/bin/python3 verl_oracle.py DIR COMMIT > /dev/null
#
# DIR holds the two files, COMMIT is recorded in the output.
import ast, json, os, sys, torch, types
torch.set_num_threads(1)
DIR, COMMIT = sys.argv[1], sys.argv[2]
def extract(path, names):
    src = open(path).read()
    tree = ast.parse(src)
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            node.decorator_list = []
            out.append(ast.unparse(node))
    return '\n\n'.join(out)
F = types.SimpleNamespace()
ns = {'torch': torch}
exec(extract(os.path.join(DIR, 'torch_functional.py'), {'masked_sum','masked_mean','clip_by_value'}), ns)
F.masked_sum, F.masked_mean, F.clip_by_value = ns['masked_sum'], ns['masked_mean'], ns['clip_by_value']
from typing import Optional, Any
ns2 = {'torch': torch, 'verl_F': F, 'Optional': Optional, 'Any': Any, 'ActorConfig': object, 'AlgoConfig': type('X',(),{})}
exec(extract(os.path.join(DIR, 'core_algos.py'), {'agg_loss','compute_value_loss','kl_penalty_forward'}), ns2)
# policy losses: use the registered vanilla & gspo bodies
exec(extract(os.path.join(DIR, 'core_algos.py'), {'compute_policy_loss_vanilla','compute_policy_loss_gspo'}), ns2)

class Cfg(dict):
    def __init__(self, **kw):
        super().__init__(**kw); self.__dict__.update(kw)
    def get(self, k, d=None): return self.__dict__.get(k, d)

g = torch.Generator().manual_seed(0)
B, L = 5, 7
mask = (torch.rand(B, L, generator=g) < 0.75).double()
mask[3] = 0  # a fully masked sequence
mask[0, 0] = 1
mask[1, 4:] = 0
mask[2, :] = 1
mask[4, :5] = 0
mask[4, 6] = 1
logp = -0.05 - 2.5*torch.rand(B, L, generator=g, dtype=torch.float64)
d = 0.3*torch.randn(B, L, generator=g, dtype=torch.float64)
d[1, 2] = 2.0; d[2, 1] = 2.5; d[4, 3] = -1.5
old = logp - d
adv = torch.randn(B, L, generator=g, dtype=torch.float64)
adv[1, 2] = -1.0; adv[2, 1] = -0.7
seqadv = torch.randn(B, 1, generator=g, dtype=torch.float64).expand(B, L).contiguous()
v = torch.randn(B, L, generator=g, dtype=torch.float64)
vold = v + 0.4*torch.randn(B, L, generator=g, dtype=torch.float64)
ret = torch.randn(B, L, generator=g, dtype=torch.float64)
ref = logp + 1.5*torch.randn(B, L, generator=g, dtype=torch.float64)
ref[0, 1] = logp[0, 1] + 4.0  # k3 output clamp
out = {'verl_commit': COMMIT, 'B': B, 'L': L, 'mask': mask.flatten().tolist(), 'logp': logp.flatten().tolist(), 'old': old.flatten().tolist(),
       'adv': adv.flatten().tolist(), 'seqadv': seqadv.flatten().tolist(), 'v': v.flatten().tolist(), 'vold': vold.flatten().tolist(),
       'ret': ret.flatten().tolist(), 'ref': ref.flatten().tolist(), 'cases': []}
def rec(name, loss, x, metrics):
    gx, = torch.autograd.grad(loss, x)
    out['cases'].append({'name': name, 'loss': loss.item(), 'grad': gx.flatten().tolist(), 'metrics': metrics})
for mode in ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm']:
    x = logp.clone().requires_grad_()
    cfg = Cfg(clip_ratio=0.2, clip_ratio_low=0.2, clip_ratio_high=0.28, clip_ratio_c=3.0, global_batch_info={})
    loss, m = ns2['compute_policy_loss_vanilla'](old, x, adv, mask, loss_agg_mode=mode, config=cfg)
    rec('ppo/'+mode, loss, x, m)
    x = v.clone().requires_grad_()
    loss, cf = ns2['compute_value_loss'](x, ret, vold, mask, 0.2, loss_agg_mode=mode)
    rec('value/'+mode, loss, x, {'clipfrac': cf.item()})
    for k in ['kl', 'abs', 'mse', 'low_var_kl']:
        x = logp.clone().requires_grad_()
        kld = ns2['kl_penalty_forward'](x, ref, k)
        loss = ns2['agg_loss'](kld, mask, mode)
        rec('kl/'+k+'/'+mode, loss, x, {})
x = logp.clone().requires_grad_()
ns2['ActorConfig'] = Cfg
cfg = Cfg(clip_ratio=0.2, clip_ratio_low=0.01, clip_ratio_high=0.012, global_batch_info={})
old_g = logp - 0.3*torch.randn(B, L, generator=g, dtype=torch.float64)
out['old_gspo'] = old_g.flatten().tolist()
loss, m = ns2['compute_policy_loss_gspo'](old_g, x, seqadv, mask, config=cfg)
rec('gspo', loss, x, m)
json.dump(out, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'verl_oracle.json'), 'w'), separators=(',', ':'))
for c in out['cases']: print(c['name'], c['loss'], c['metrics'])
