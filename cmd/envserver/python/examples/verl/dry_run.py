#!/usr/bin/env python3
"""verl v0.7.0's path through arew, without verl: the dry run CI runs.

    python3 dry_run.py --base-url http://127.0.0.1:8080 --data DIR/train.json [--rows 4] [--n 4] [--lam 3]

It does, with the standard library and a random policy in place of the
model, what verl v0.7.0 does with run_grpo.sh's configuration:

  1. the agent loop "tool_agent" (verl/experimental/agent_loop/tool_agent_loop.py):
     per row and sample, start_interaction(request_id, **interaction_kwargs),
     then after each assistant turn generate_response(request_id, messages,
     **interaction_kwargs), collecting the turn scores, until the episode ends
     or max_assistant_turns; the response mask is 1 on the assistant's tokens
     and 0 on the interaction's (here a token is a word);
  2. the reward loop's naive manager: extra_info gets the turn_scores and the
     custom reward function (arew_reward.py -> arew_env.verl_trainer.compute_score)
     returns the outcome;
  3. the driver's compute_advantage: GRPO's (r - mean) / (std + 1e-6) per
     group of the n samples of a row, times the response mask, then the
     patch of arew_reward.py adds lambda * u (correct_batch_advantages).

It checks what it can (every outcome equals the server's, corrections only
where both critique signs occur, observation tokens untouched) and prints a
summary. Exit status 1 on a failed check.
"""

import argparse
import asyncio
import json
import random
import re
import statistics
import sys

from arew_env import ArewEnvClient
from arew_env.verl_interaction import ArewInteraction, unpack_turn_scores
from arew_env.verl_trainer import compute_score, correct_batch_advantages


def random_policy(rng):
    """A stand-in for the model: a listed command in a text environment; a
    random question or belief where the observation asks for one (FloDial,
    MediQ); otherwise a random word of the observation."""
    def act(messages):
        text = messages[-1]["content"]
        commands = [line[2:] for line in text.splitlines() if line.startswith("- ")]
        if commands:
            return f"I will try this.\n<answer>{rng.choice(commands)}</answer>"
        m = re.search(r"ask one question \(q0 to q(\d+)\)", text)
        if m:
            return f"<answer>q{rng.randint(0, int(m.group(1)))}</answer>"
        m = re.search(r"(\d+) numbers from 0 to (\d+)", text)
        if m:
            return "<answer>" + " ".join(str(rng.randint(0, int(m.group(2)))) for _ in range(int(m.group(1)))) + "</answer>"
        return rng.choice(text.split() or ["pass"])
    return act


async def agent_loop(interaction, row, request_id, policy, max_turns):
    """verl v0.7.0's ToolAgentLoop.run with an interaction and no tools."""
    kwargs = row["extra_info"]["interaction_kwargs"]
    await interaction.start_interaction(request_id, **kwargs)
    messages = list(row["prompt"])
    turn_scores, mask = [], []
    for _ in range(max_turns):
        reply = policy(messages)
        messages.append({"role": "assistant", "content": reply})
        mask += [1] * len(reply.split())
        done, text, score, _ = await interaction.generate_response(request_id, messages, **kwargs)
        messages.append({"role": "user", "content": text})
        mask += [0] * len(text.split())
        turn_scores.append(score)
        if done:
            break
    return {"turn_scores": turn_scores, "response_mask": mask, "messages": messages}


def grpo(scores, groups):
    """verl's compute_grpo_outcome_advantage: (r - mean) / (std + 1e-6) per group (unbiased std; a group of one: 0, 1)."""
    out = []
    for r, g in zip(scores, groups):
        members = [s for s, h in zip(scores, groups) if h == g]
        mean = statistics.fmean(members) if len(members) > 1 else 0.0
        std = statistics.stdev(members) if len(members) > 1 else 1.0
        out.append((r - mean) / (std + 1e-6))
    return out


def check(cond, what):
    if not cond:
        print("FAILED:", what, file=sys.stderr)
        sys.exit(1)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", default="http://127.0.0.1:8080")
    ap.add_argument("--data", required=True, help="a train.json written by write_dataset.py")
    ap.add_argument("--rows", type=int, default=4)
    ap.add_argument("--n", type=int, default=4, help="samples per row (actor_rollout_ref.rollout.n)")
    ap.add_argument("--lam", type=float, default=3.0)
    ap.add_argument("--max-turns", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with open(args.data) as f:
        rows = [json.loads(line) for line in f][: args.rows]
    client = ArewEnvClient(args.base_url)
    client.wait_healthy()
    interaction = ArewInteraction({"name": "arew", "base_url": args.base_url, "turn_score": "arew"})
    rng = random.Random(args.seed)
    jobs, groups = [], []
    for i, row in enumerate(rows):
        for k in range(args.n):
            jobs.append(agent_loop(interaction, row, f"req-{i}-{k}", random_policy(random.Random(rng.random())), args.max_turns))
            groups.append(i)
    samples = await asyncio.gather(*jobs)

    # 2. The reward loop: extra_info = the row's extra_info + the agent loop's extra fields.
    scores = []
    for s, g in zip(samples, groups):
        extra = dict(rows[g]["extra_info"], turn_scores=s["turn_scores"], num_turns=len(s["messages"]))
        scores.append(compute_score(rows[g]["data_source"], "", "", extra))
    for s, r, (i, k) in zip(samples, scores, [(g, k) for g in range(len(rows)) for k in range(args.n)]):
        _, outcome, ended = unpack_turn_scores(s["turn_scores"])
        check(r == outcome, "the reward function reads the outcome")
        if ended:
            check(r == interaction._episodes[f"req-{i}-{k}"]["reward"], "the outcome is the server's")

    # 3. The driver: GRPO, then the AREW patch on a verl-shaped batch (lists for tensors).
    width = max(len(s["response_mask"]) for s in samples)
    masks = [s["response_mask"] + [0] * (width - len(s["response_mask"])) for s in samples]
    adv = [[a * m for m in mask] for a, mask in zip(grpo(scores, groups), masks)]

    class Batch:  # DataProto's two fields the patch reads
        batch = {"advantages": [list(r) for r in adv], "response_mask": masks}
        non_tensor_batch = {"turn_scores": [s["turn_scores"] for s in samples]}

    correct_batch_advantages(Batch, args.lam)
    corrected = 0
    for s, before, after, mask in zip(samples, adv, Batch.batch["advantages"], masks):
        crit, _, _ = unpack_turn_scores(s["turn_scores"])
        check(all(a == b for a, b, m in zip(before, after, mask) if m == 0), "observation tokens untouched")
        changed = any(abs(a - b) > 1e-12 for a, b in zip(before, after))
        check(changed == (1 in crit and -1 in crit), "a correction exactly where both critique signs occur")
        corrected += changed
    task = rows[0]["extra_info"]["interaction_kwargs"]["task"]
    print(f"verl dry run, {task}: {len(samples)} samples ({len(rows)} rows x n={args.n}), "
          f"mean reward {statistics.fmean(scores):.3f}, {corrected} trajectories corrected by AREW (lambda {args.lam})")
    print("ok")


if __name__ == "__main__":
    asyncio.run(main())
