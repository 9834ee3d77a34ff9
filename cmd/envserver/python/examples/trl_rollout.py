#!/usr/bin/env python3
"""arew's environments as a TRL GRPOTrainer rollout_func, with AREW's advantage.

Written against TRL v1.9.0 (trl/trainer/grpo_trainer.py at tag v1.9.0),
where these were checked:

  * GRPOTrainer(..., rollout_func=f) calls f(prompts, trainer) and needs a
    dict with "prompt_ids", "completion_ids" and "logprobs" (one list per
    prompt it got); "env_mask" (1 on the model's tokens, 0 on the
    environment's) keeps the environment's replies out of the loss; every
    other key is merged into the inputs by index and reaches the reward
    functions as a keyword argument. The prompts arrive already repeated
    num_generations times by TRL's sampler (RepeatSampler, mini_repeat_count),
    so f returns one completion per prompt it gets. rollout_func is marked
    experimental by TRL.
  * _compute_loss accepts advantages of shape (B, T) ("to support subclasses
    that provide advantages with shape (B, T)"), so ArewGRPOTrainer replaces
    the (B,) GRPO advantages with A + lambda * u per token after
    _generate_and_score_completions, whose output has "advantages",
    "completion_mask" and "tool_mask" (the env_mask, padded with 1).

Use (with TRL, vLLM and a model):

    rows = [dataset_row(client, "alfworld", "train", i) for i in range(256)]
    dataset = datasets.Dataset.from_list([{"prompt": r["prompt"]} for r in rows])
    trainer = ArewGRPOTrainer(model=..., args=GRPOConfig(..., num_generations=8),
                              train_dataset=dataset, reward_funcs=[env_reward],
                              rollout_func=make_rollout_func(client, rows, vllm_turn),
                              arew_lambda=3.0)

vllm_turn below generates one assistant turn with the trainer's vLLM
(vllm_mode="colocate", one process: in server mode vLLM generation is a
collective call that every rank must make the same number of times).

    python3 trl_rollout.py --dry-run --base-url http://127.0.0.1:8080 [--task webshop]

runs rollout_func and the advantage arithmetic with the standard library:
a word-level stand-in tokenizer and a random policy for the model.
"""

import argparse
import random
import sys

from arew_env import ArewEnvClient, arew_correction, play_episode
from arew_env.verl_interaction import dataset_row


def prompt_key(messages):
    """The key of a prompt: rollout_func gets only the prompts, so it finds
    each one's instance by its text (resets are deterministic)."""
    return "\x00".join(m["role"] + "\x01" + m["content"] for m in messages)


def index_rows(rows):
    index = {}
    for r in rows:
        key = prompt_key(r["prompt"])
        if key in index and index[key] is not r:
            kw = r["extra_info"]["interaction_kwargs"]
            raise ValueError(f"two instances share one prompt ({kw}): keep one of them in the dataset")
        index[key] = r
    return index


def make_rollout_func(client, rows, generate_turn, tokenize_chat=None):
    """rollout_func(prompts, trainer) for GRPOTrainer.

    rows           the dataset's rows (dataset_row), to find each prompt's instance
    generate_turn  generate_turn(trainer, messages) -> (text, token_ids, logprobs):
                   one assistant turn, its tokens ending the turn as the chat
                   template does (e.g. with the end-of-turn token)
    tokenize_chat  tokenize_chat(trainer, messages, add_generation_prompt) -> ids;
                   default: the trainer's processing_class.apply_chat_template
    """
    index = index_rows(rows)
    tokenize_chat = tokenize_chat or template_ids

    def rollout_func(prompts, trainer):
        def generate(messages):  # play_episode keeps (text, (ids, logprobs)) per turn
            text, ids, logprobs = generate_turn(trainer, messages)
            return text, (ids, logprobs)

        out = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [],
               "env_reward": [], "critiques": []}
        for prompt in prompts:
            kw = index[prompt_key(prompt)]["extra_info"]["interaction_kwargs"]
            ep = play_episode(client, generate, kw["task"], kw["split"], kw["index"], kw.get("config"))
            prompt_ids = tokenize_chat(trainer, ep["messages"][:2], True)
            ids, lps, mask = [], [], []
            for k, turn in enumerate(ep["turns"]):
                tok, lp = turn["generated"][1]
                ids, lps, mask = ids + list(tok), lps + list(lp), mask + [1] * len(tok)
                if k + 1 < len(ep["turns"]):  # the environment's reply, between two turns: masked out
                    upto = ep["messages"][: 3 + 2 * k]  # system, first observation, then turns and replies
                    before = tokenize_chat(trainer, upto, False)
                    after = tokenize_chat(trainer, ep["messages"][: 4 + 2 * k], True)
                    reply = after[len(before):]
                    ids, lps, mask = ids + reply, lps + [0.0] * len(reply), mask + [0] * len(reply)
            out["prompt_ids"].append(prompt_ids)
            out["completion_ids"].append(ids)
            out["logprobs"].append(lps)
            out["env_mask"].append(mask)
            out["env_reward"].append(float(ep["reward"]))
            out["critiques"].append(ep["critiques"])
        return out

    return rollout_func


def env_reward(completions, env_reward, **kwargs):
    """TRL reward function: the environment's outcome (the rollout's extra field)."""
    return list(env_reward)


def arew_token_advantages(advantages, agent_mask, critiques, lam, mode="step"):
    """Per-token A-hat from GRPO's per-completion A: every token gets A, the
    agent's tokens of critiqued turns A + lambda * u. agent_mask is
    completion_mask * tool_mask (1 on the model's tokens, each turn a run)."""
    rows = [[a] * len(m) for a, m in zip(advantages, agent_mask)]
    return arew_correction(rows, agent_mask, critiques, lam, mode)


def template_ids(trainer, messages, add_generation_prompt):
    """The chat template's token ids (TRL keeps the tokenizer as processing_class)."""
    return list(trainer.processing_class.apply_chat_template(
        messages, add_generation_prompt=add_generation_prompt, tokenize=True))


def vllm_turn(trainer, messages):
    """One assistant turn from the trainer's vLLM (TRL v1.9.0:
    trainer.vllm_generation.generate(prompts=token ids, images, num_generations)
    -> (prompt_ids, completion_ids, logprobs, logprob_token_ids), logprobs top-k
    per token with the sampled token first)."""
    ids = template_ids(trainer, messages, True)
    _, completion_ids, logprobs, _ = trainer.vllm_generation.generate(prompts=[ids], images=None, num_generations=1)
    tok, lp = completion_ids[0], [x[0] for x in logprobs[0]]
    return trainer.processing_class.decode(tok, skip_special_tokens=True), tok, lp


try:  # with TRL: the trainer that applies AREW's correction
    import torch
    from trl import GRPOTrainer

    class ArewGRPOTrainer(GRPOTrainer):
        """GRPOTrainer whose advantages are A + lambda * u per token, u from
        the critiques the rollout_func returns (extra field "critiques")."""

        def __init__(self, *args, arew_lambda=1.0, arew_mode="step", **kwargs):
            super().__init__(*args, **kwargs)
            self.arew_lambda, self.arew_mode = arew_lambda, arew_mode

        def _generate_and_score_completions(self, inputs):
            out = super()._generate_and_score_completions(inputs)  # merges "critiques" into inputs
            adv = out["advantages"]
            agent = out["completion_mask"] * out.get("tool_mask", torch.ones_like(out["completion_mask"]))
            rows = arew_token_advantages(adv.tolist(), agent.tolist(), [x["critiques"] for x in inputs],
                                         self.arew_lambda, self.arew_mode)
            out["advantages"] = torch.tensor(rows, dtype=adv.dtype, device=adv.device)
            return out
except ImportError:
    ArewGRPOTrainer = None


# --- the dry run: standard library stand-ins for the tokenizer and the model ---

class WordTokenizer:
    """A stand-in tokenizer: a word is a token; a template of role headers."""

    def __init__(self):
        self.ids = {}

    def encode(self, text):
        return [self.ids.setdefault(w, len(self.ids)) for w in text.split()]

    def apply_chat_template(self, messages, add_generation_prompt=False, tokenize=True):
        ids = []
        for m in messages:
            ids += self.encode(f"<|{m['role']}|> {m['content']} <|end|>")
        return ids + (self.encode("<|assistant|>") if add_generation_prompt else [])


class DryTrainer:
    def __init__(self, seed):
        self.processing_class = WordTokenizer()
        self.rng = random.Random(seed)


def random_turn(trainer, messages):
    """A stand-in model: a listed command, a random question or belief, or a random word."""
    text = messages[-1]["content"]
    commands = [line[2:] for line in text.splitlines() if line.startswith("- ")]
    if commands:
        reply = f"<answer>{trainer.rng.choice(commands)}</answer>"
    elif "ask one question" in text:
        reply = f"<answer>q{trainer.rng.randint(0, 11)}</answer>"
    else:
        reply = "<answer>" + " ".join(str(trainer.rng.randint(0, 3)) for _ in range(6)) + "</answer>"
    tok = trainer.processing_class.encode(reply + " <|end|>")
    return reply, tok, [-trainer.rng.random() for _ in tok]


def check(cond, what):
    if not cond:
        print("FAILED:", what, file=sys.stderr)
        sys.exit(1)


def dry_run(base_url, task, n_prompts, generations, lam):
    client = ArewEnvClient(base_url)
    client.wait_healthy()
    rows = [dataset_row(client, task, "train", i) for i in range(n_prompts)]
    prompts = [r["prompt"] for r in rows for _ in range(generations)]  # as TRL's RepeatSampler repeats them
    trainer = DryTrainer(seed=7)
    out = make_rollout_func(client, rows, random_turn)(prompts, trainer)
    for key in ("prompt_ids", "completion_ids", "logprobs", "env_mask", "env_reward", "critiques"):
        check(len(out[key]) == len(prompts), f"one {key} per prompt")
    for ids, lps, mask, crit in zip(out["completion_ids"], out["logprobs"], out["env_mask"], out["critiques"]):
        check(len(ids) == len(lps) == len(mask), "completion ids, logprobs and env_mask align")
        runs = sum(1 for i, m in enumerate(mask) if m and (i == 0 or not mask[i - 1]))
        check(runs == len(crit), "one run of model tokens per turn")
        check(all(lp == 0.0 for lp, m in zip(lps, mask) if m == 0), "no logprob on the environment's tokens")
    rewards = env_reward(None, out["env_reward"])
    # GRPO's per-completion advantage, then AREW per token (ArewGRPOTrainer's arithmetic).
    adv = []
    for g in range(n_prompts):
        group = rewards[g * generations:(g + 1) * generations]
        mean = sum(group) / len(group)
        std = (sum((r - mean) ** 2 for r in group) / max(len(group) - 1, 1)) ** 0.5
        adv += [(r - mean) / (std + 1e-4) for r in group]
    width = max(len(m) for m in out["env_mask"])
    agent = [m + [0] * (width - len(m)) for m in out["env_mask"]]
    per_token = arew_token_advantages(adv, agent, out["critiques"], lam)
    corrected = sum(1 for a, row in zip(adv, per_token) if any(abs(x - a) > 1e-12 for x in row))
    both = sum(1 for c in out["critiques"] if 1 in c and -1 in c)
    check(corrected == both, "a correction exactly where both critique signs occur")
    print(f"TRL dry run, {task}: {len(prompts)} completions ({n_prompts} prompts x {generations}), "
          f"mean reward {sum(rewards) / len(rewards):.3f}, {sum(map(len, out['completion_ids']))} tokens, "
          f"{corrected} completions corrected by AREW (lambda {lam})")
    print("ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dry-run", action="store_true", help="run with stand-ins, standard library only")
    ap.add_argument("--base-url", default="http://127.0.0.1:8080")
    ap.add_argument("--task", default="flodial-easy")
    ap.add_argument("--prompts", type=int, default=3)
    ap.add_argument("--generations", type=int, default=4)
    ap.add_argument("--lam", type=float, default=3.0)
    args = ap.parse_args()
    if not args.dry_run:
        print("this module is imported by a TRL training script (see its docstring); --dry-run runs it without TRL")
        return 2
    dry_run(args.base_url, args.task, args.prompts, args.generations, args.lam)
    return 0


if __name__ == "__main__":
    sys.exit(main())
