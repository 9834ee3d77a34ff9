#!/usr/bin/env python3
"""Play a scripted policy through arew's environment server, as verl would.

    go run ./cmd/envserver &                 # http://127.0.0.1:8080
    pip install --no-index --no-build-isolation ./cmd/envserver/python   # or PYTHONPATH=cmd/envserver/python
    python3 cmd/envserver/python/examples/flodial_policy.py [--base-url URL] [--episodes N]

The policy reads only the text the server sends: it parses FloDial's
flowchart from the first observation, asks the question that best splits
the faults still consistent with the replies, and states a belief flat on
them. The rollout loop below is the one verl's multi-turn rollout runs
around an interaction (start_interaction, then generate_response after each
assistant turn; calculate_score and finalize_interaction, which verl v0.7.0
does not call, are kept for rollouts that do); the "model" is the
policy, and the samples run concurrently as verl runs them. Per episode it
computes AREW's u from the critiques; it replays a few episodes through
play_episode (the loop of a custom rollout such as TRL's rollout_func) and
checks they agree; it also checks the other endpoints, and exits non-zero
if anything is off.
"""

import argparse
import asyncio
import math
import re
import sys

from arew_env import ArewEnvClient, ArewEnvError, margin_weights, play_episode
from arew_env.verl_interaction import ArewInteraction, dataset_row

TASK = "flodial-easy"


class ConsistentSetPolicy:
    """FloDial from text: the consistent set C and the most splitting question."""

    def __init__(self, first_observation):
        self.table = {}
        for line in first_observation.splitlines():
            m = re.match(r"^(q\d+):\s+(.*)$", line.strip())
            if m:
                self.table[m.group(1)] = m.group(2).split()
        self.faults = len(next(iter(self.table.values())))
        self.consistent = set(range(self.faults))
        self.asked = None
        self.done = set()

    def observe(self, text):
        """Read the reply to the last question (its first word)."""
        words = text.split()
        if self.asked is not None and words and words[0] in ("YES", "NO", "UNK"):
            cells = self.table[self.asked]
            self.consistent = {f for f in self.consistent if cells[f] == words[0]}
        self.asked = None

    def act(self, prompt):
        """The move for the turn the last observation asks for (read from its text)."""
        if "ask one question" in prompt:
            def entropy(q):
                counts = {}
                for f in self.consistent:
                    counts[self.table[q][f]] = counts.get(self.table[q][f], 0) + 1
                n = len(self.consistent)
                return -sum(c / n * math.log(c / n) for c in counts.values())
            open_qs = [q for q in self.table if q not in self.done]
            q = max(open_qs, key=lambda q: (entropy(q), -int(q[1:])))
            self.asked = q
            self.done.add(q)
            return f"The question that best splits the remaining faults is {q}.\n<answer>{q}</answer>"
        final = "final belief" in prompt
        top = min(self.consistent)
        levels = []
        for f in range(self.faults):
            if f not in self.consistent:
                levels.append(0)
            elif final and f != top:
                levels.append(2)  # the final answer needs a single largest weight
            else:
                levels.append(3)
        return "Belief: " + " ".join(map(str, levels))

    def generate(self, messages):
        """A chat model's interface: the reply to the conversation so far."""
        if messages[-2]["role"] == "assistant":
            self.observe(messages[-1]["content"])
        return self.act(messages[-1]["content"])


async def rollout(interaction, row, sample_id):
    """verl's multi-turn loop around one interaction, the policy as the model."""
    kwargs = dict(row["extra_info"]["interaction_kwargs"])
    kwargs.pop("name")  # verl uses it to pick the interaction
    iid = await interaction.start_interaction(instance_id=sample_id, **kwargs)
    messages = list(row["prompt"])
    policy = ConsistentSetPolicy(messages[-1]["content"])
    done = False
    while not done:
        messages.append({"role": "assistant", "content": policy.generate(messages)})
        done, text, _score, _extra = await interaction.generate_response(iid, messages)
        messages.append({"role": "user", "content": text})
    reward = await interaction.calculate_score(iid)
    z = interaction.critiques(iid)
    measures = interaction.measures(iid)
    await interaction.finalize_interaction(iid)
    return reward, z, measures, messages


def check(cond, what):
    if not cond:
        print("FAILED:", what, file=sys.stderr)
        sys.exit(1)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", default="http://127.0.0.1:8080")
    ap.add_argument("--episodes", type=int, default=20)
    args = ap.parse_args()

    client = ArewEnvClient(args.base_url)
    check(client.wait_healthy()["status"] == "healthy", "GET /health")
    meta = client.metadata()
    check(TASK in meta["tasks"], "GET /metadata lists " + TASK)
    check({"action", "observation", "state"} <= set(client.schema()), "GET /schema")
    settings = {t["name"]: t for t in client.tasks()["tasks"]}
    check(settings[TASK]["config"]["Faults"] == 6, "GET /tasks: flodial-easy has 6 faults")

    # Determinism: the same reset gives the same episode.
    a, b = client.reset(TASK, "test", index=4), client.reset(TASK, "test", index=4)
    check(a["observation"] == b["observation"], "two resets of one instance agree")
    # Tolerance and penalties: an unknown word is malformed, critiqued -1.
    bad = client.step(a["episode_id"], "Let me ask about the battery.")
    check(bad["info"]["malformed"] and bad["info"]["critique"] == -1, "a malformed move is penalised")
    check(bad["info"]["parse_error"] != "", "parse_error says why")
    state = client.state(a["episode_id"])
    check(state["step_count"] == 1 and not state["done"], "GET /state")
    # Ownership: a wrong token answers as an unknown episode does.
    try:
        client.step(b["episode_id"], "q1", token=a["token"])
        check(False, "a wrong token is refused")
    except ArewEnvError as e:
        check(e.status == 404, "404 for a wrong token")
    for ep in (a, b):
        client.close(ep["episode_id"])
    try:
        client.step(a["episode_id"], "q1", token=a["token"])
        check(False, "a closed episode is gone")
    except ArewEnvError as e:
        check(e.status == 404, "404 for a closed episode")

    # verl's rollout runs its samples concurrently against one interaction.
    interaction = ArewInteraction({"name": "arew", "base_url": args.base_url, "task": TASK})
    rows = [dataset_row(client, TASK, "test", i) for i in range(args.episodes)]
    results = await asyncio.gather(*(rollout(interaction, row, f"sample-{i}") for i, row in enumerate(rows)))
    wins, steps, as_plus, margins = 0, 0, 0, []
    for i, (reward, z, measures, messages) in enumerate(results):
        wins += reward
        steps += len(z)
        as_plus += sum(1 for k, c in enumerate(z) if k % 2 == 0 and c > 0)
        margins.append(margin_weights(z))
        check(measures is not None and measures["reward"] == reward, "measures at the end")
        if i == 0:
            print("--- episode 0 as verl's chat sees it ---")
            for m in messages[1:6]:
                print(f"[{m['role']}] {m['content']}")
            print("...")
            print(f"critiques {z}  ->  AREW u {[round(u, 3) for u in margins[0]]}")
            print(f"measures {measures}")
    rate = wins / args.episodes
    print(f"{args.episodes} episodes of {TASK} (test split): success {rate:.2f}, "
          f"{steps} steps, AS critiques +1 on {as_plus} of {steps // 2} questions")
    check(rate >= 0.6, f"the consistent-set policy should mostly succeed (got {rate:.2f})")

    # The same episodes through play_episode, the loop a custom rollout
    # (e.g. TRL's rollout_func) runs with its own generate(): equal results.
    for i in range(min(5, args.episodes)):
        policy = ConsistentSetPolicy(rows[i]["prompt"][-1]["content"])
        ep = play_episode(client, policy.generate, TASK, "test", index=i)
        check(ep["reward"] == results[i][0] and ep["critiques"] == results[i][1],
              f"play_episode agrees with the interaction on episode {i}")
    check(client.metadata()["tasks"] == meta["tasks"], "server still up")
    print("ok")


if __name__ == "__main__":
    asyncio.run(main())
