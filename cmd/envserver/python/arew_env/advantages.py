"""The AREW correction from the server's per-step critiques.

AREW adds to the outcome objective J the margin L = mean log-likelihood of
the steps critiqued +1 minus that of the steps critiqued -1. Its gradient
is the policy gradient with the per-token advantage

    A-hat_t = A_t + lambda * u_s(t),   u_s = +1/|P|, -1/|N| or 0,

where s(t) is the step (one assistant turn) that token t belongs to, P and
N are the trajectory's steps critiqued +1 and -1. A trajectory whose
critiques are all of one sign gets no correction. Add it after the stack
has computed (and whitened) A; leave the critic's targets alone.
"""


def margin_weights(critiques):
    """u for each step of one trajectory, from its critiques z in {-1, 0, 1}."""
    pos = sum(1 for z in critiques if z > 0)
    neg = sum(1 for z in critiques if z < 0)
    if pos == 0 or neg == 0:
        return [0.0] * len(critiques)
    return [1.0 / pos if z > 0 else (-1.0 / neg if z < 0 else 0.0) for z in critiques]


def corrected_advantages(advantages, step_of_token, critiques, lam):
    """A-hat for one trajectory's response tokens.

    advantages     per-token A (the stack's own estimate)
    step_of_token  per token, the index of its step (assistant turn), or -1
                   for tokens that are not the agent's (observations)
    critiques      per step, z from /step's info["critique"]
    lam            lambda, the weight of the margin
    """
    u = margin_weights(critiques)
    return [a + lam * u[s] if s >= 0 else a for a, s in zip(advantages, step_of_token)]


def step_of_token(response_mask):
    """Per token, the index of its assistant turn, from a 0/1 response mask
    in which each assistant turn is one run of 1s (observation tokens 0)."""
    out, step, prev = [], -1, 0
    for m in response_mask:
        if m and not prev:
            step += 1
        out.append(step if m else -1)
        prev = m
    return out
