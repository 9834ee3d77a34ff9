"""play_episode: one episode with any text generator, for custom rollouts.

A stack-agnostic loop for rollout functions that own generation, such as
TRL's GRPOTrainer rollout_func (examples/trl_rollout.py): generate(messages)
returns the model's reply for the chat so far, or (reply, anything) to keep
what the trainer needs beside it (token ids, log-probs). The result has per
turn the reply, what generate returned, the critique (0 in a text
environment, which has none) and the kind, and the outcome and measures at
the end; arew_env.advantages turns the critiques into AREW's per-token
correction.
"""


def play_episode(client, generate, task, split="train", index=0, config=None, max_turns=128):
    res = client.reset(task, split, index=index, config=config)
    eid, token = res["episode_id"], res["token"]
    obs = res["observation"]
    messages = [{"role": "system", "content": obs["system"]}, {"role": "user", "content": obs["text"]}]
    turns = []
    try:
        while not res["done"]:
            if len(turns) >= max_turns:
                raise RuntimeError(f"episode {eid} still running after {max_turns} turns")
            out = generate(messages)
            text = out[0] if isinstance(out, tuple) else out
            res = client.step(eid, text, token=token)
            info = res["info"]
            turns.append({"reply": text, "generated": out, "critique": info.get("critique") or 0,
                          "kind": info["kind"], "malformed": info["malformed"],
                          "observation": res["observation"]["text"]})
            messages.append({"role": "assistant", "content": text})
            if not res["done"]:
                messages.append({"role": "user", "content": res["observation"]["text"]})
    finally:
        try:
            client.close(eid, token=token)
        except Exception:  # already gone: nothing to release
            pass
    return {"messages": messages, "turns": turns, "reward": res["reward"],
            "critiques": [t["critique"] for t in turns], "measures": res["info"].get("measures")}
