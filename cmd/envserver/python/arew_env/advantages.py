"""AREW's advantage correction from the server's per-step critiques.

AREW adds to the outcome objective J the margin L = mean log-likelihood of
the steps critiqued +1 minus that of the steps critiqued -1. Its gradient
is the policy gradient with the per-token advantage

    A-hat_t = A_t + lambda * u_t

where u is the margin's weight of token t (mode "step", the paper's and
the trainers' default: u_t = +1/|P| on every agent token of a step
critiqued +1, -1/|N| on every agent token of a step critiqued -1, 0
elsewhere), P and N the trajectory's steps critiqued +1 and -1. A
trajectory whose critiques are all of one sign gets no correction. Add it
after the stack has computed (and whitened) A; leave the rewards and the
critic's targets alone. optim/doc.go ("AREW") derives it.

This is kernels.MarginCorrection of the Go code, mode for mode
(kernels/doc_advantage.go): tests/test_advantages.py checks it against
the values the Go kernel computes (kernels/testdata/margin_cases.json,
written and checked by the Go test TestMarginFixture).

Standard library only: it works on lists of numbers. With tensors, pass
.tolist() and convert back (examples/verl/arew_verl.py does).
"""

MODES = ("step", "step_spread", "minority_fixed", "abs_sum")


def margin_weights(critiques):
    """u for each step of one trajectory (mode "step"), from its critiques z in {-1, 0, 1}."""
    pos = sum(1 for z in critiques if z > 0)
    neg = sum(1 for z in critiques if z < 0)
    if pos == 0 or neg == 0:
        return [0.0] * len(critiques)
    return [1.0 / pos if z > 0 else (-1.0 / neg if z < 0 else 0.0) for z in critiques]


def step_of_token(response_mask):
    """Per token, the index of its assistant turn, from a 0/1 response mask
    in which each assistant turn is one run of 1s (observation and padding
    tokens 0, which get -1)."""
    out, step, prev = [], -1, 0
    for m in response_mask:
        if m and not prev:
            step += 1
        out.append(step if m else -1)
        prev = m
    return out


def token_margin(step_of_token, critiques, mode="step"):
    """u per token of one trajectory (0 on tokens of no step).

    step_of_token  per token, the index of its step, or -1
    critiques      per step, z in {-1, 0, 1}; steps past its end count as z = 0,
                   and a step with no token counts neither in P nor in N
    mode           "step" (copied: +1/|P|, -1/|N| on each token of the step),
                   "step_spread" (the same divided by the step's token count),
                   "minority_fixed" (the side with fewer tokens +-1 per token,
                   the other -+minority/majority), "abs_sum" (+1/(2 s+),
                   -1/(2 s-) per token, s+- the tokens of P and N)
    """
    if mode not in MODES:
        raise ValueError(f"unknown margin mode {mode!r} (want one of {', '.join(MODES)})")
    tokens = {}
    for s in step_of_token:
        if s >= 0:
            tokens[s] = tokens.get(s, 0) + 1

    def z_of(s):
        return critiques[s] if 0 <= s < len(critiques) else 0

    pos = [s for s in tokens if z_of(s) > 0]
    neg = [s for s in tokens if z_of(s) < 0]
    if not pos or not neg:
        return [0.0] * len(step_of_token)
    tok_pos = sum(tokens[s] for s in pos)
    tok_neg = sum(tokens[s] for s in neg)
    if mode in ("step", "step_spread"):
        w_pos, w_neg = 1.0 / len(pos), 1.0 / len(neg)
    elif mode == "minority_fixed":
        w_pos, w_neg = (1.0, tok_pos / tok_neg) if tok_pos <= tok_neg else (tok_neg / tok_pos, 1.0)
    else:  # abs_sum
        w_pos, w_neg = 1.0 / (2 * tok_pos), 1.0 / (2 * tok_neg)
    out = []
    for s in step_of_token:
        z = z_of(s) if s >= 0 else 0
        u = w_pos if z > 0 else (-w_neg if z < 0 else 0.0)
        if u and mode == "step_spread":
            u /= tokens[s]
        out.append(u)
    return out


def corrected_advantages(advantages, step_of_token, critiques, lam, mode="step"):
    """A-hat = A + lambda * u for one trajectory's tokens.

    advantages     per-token A (the stack's own estimate)
    step_of_token  per token, the index of its step (assistant turn), or -1
                   for tokens that are not the agent's (observations, padding)
    critiques      per step, z from /step's info["critique"]
    lam            lambda, the weight of the margin
    mode           how u spreads over a step's tokens (token_margin)
    """
    u = token_margin(step_of_token, critiques, mode)
    return [a + lam * w for a, w in zip(advantages, u)]


def arew_correction(advantages, response_mask, critiques, lam, mode="step"):
    """A-hat for a batch laid out as verl and TRL lay it: rows of response
    tokens, each assistant turn a run of 1s in the row's response mask (0
    on observations and padding), and per row the critiques of its turns in
    order. Returns new rows; tokens outside the turns keep their A.

    A row cut short (a response truncated at the length limit) has fewer
    runs than critiques: the missing turns have no tokens and count in
    neither P nor N, as in the Go kernel.
    """
    if not (len(advantages) == len(response_mask) == len(critiques)):
        raise ValueError(f"batch sizes differ: {len(advantages)} advantage rows, "
                         f"{len(response_mask)} mask rows, {len(critiques)} critique lists")
    out = []
    for adv, mask, crit in zip(advantages, response_mask, critiques):
        if len(adv) != len(mask):
            raise ValueError(f"a row has {len(adv)} advantages and {len(mask)} mask entries")
        out.append(corrected_advantages(adv, step_of_token(mask), crit, lam, mode))
    return out
