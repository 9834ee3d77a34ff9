"""ArewInteraction: arew's environments in verl's multi-turn interaction interface.

verl's multi-turn rollout (actor_rollout_ref.rollout.multi_turn, with an
interaction_config_path) drives one interaction object per configured name:
for each sample it calls start_interaction(instance_id, **interaction_kwargs),
then after every assistant turn generate_response(instance_id, messages) ->
(should_terminate, response_text, turn_score, extra), which it appends as the
next user message, until should_terminate or its turn limit; then
calculate_score and finalize_interaction. This class has exactly those
methods (it subclasses verl's BaseInteraction when verl is installed, and
runs without it), each mapped onto the server:

    start_interaction    POST /reset {task, split, index, config} -> episode_id, token
    generate_response    POST /step  {episode_id, token, action: the last assistant message}
    calculate_score      the outcome reward (info.measures.reward at the end)
    finalize_interaction POST /close {episode_id, token}

The dataset row's prompt must be the episode's first messages, which
dataset_row() builds: resets are deterministic, so the episode that
start_interaction opens is the one the prompt shows.

Config (the "config:" block of verl's interaction YAML):
    base_url    the server (default http://127.0.0.1:8080)
    task, split defaults for samples whose interaction_kwargs omit them
    turn_score  "critique" (default): generate_response's turn score is the
                step's critique z; "none": 0.0. The outcome reward is only
                in calculate_score. See docs/envserver.md on using the
                critiques as AREW's correction rather than as rewards.
"""

import asyncio

from .client import ArewEnvClient

try:  # verl present: be a real BaseInteraction
    from verl.interactions.base import BaseInteraction
except ImportError:  # verl absent: the same shape, standard library only
    class BaseInteraction:
        def __init__(self, config):
            self.config = config
            self.name = config.get("name", "interaction_agent")


class ArewInteraction(BaseInteraction):
    def __init__(self, config):
        super().__init__(config)
        self.client = ArewEnvClient(config.get("base_url", "http://127.0.0.1:8080"),
                                    timeout=float(config.get("timeout", 30.0)))
        self.default_task = config.get("task", "flodial-easy")
        self.default_split = config.get("split", "train")
        self.turn_score = config.get("turn_score", "critique")
        self._episodes = {}  # instance_id -> {"id", "reward", "steps": [info, ...], "done"}

    async def start_interaction(self, instance_id=None, task=None, split=None, index=0, config=None, **kwargs):
        res = await asyncio.to_thread(self.client.reset, task or self.default_task,
                                      split or self.default_split, index=index, config=config)
        if instance_id is None:
            instance_id = res["episode_id"]
        self._episodes[instance_id] = {"id": res["episode_id"], "token": res["token"], "reward": 0.0, "steps": [], "done": False,
                                       "turn": res["observation"]["turn"]}
        return instance_id

    async def generate_response(self, instance_id, messages, **kwargs):
        ep = self._episodes[instance_id]
        content = ""
        for m in reversed(messages):
            if m.get("role") == "assistant":
                content = m.get("content") or ""
                break
        res = await asyncio.to_thread(self.client.step, ep["id"], content, ep["token"])
        info = res["info"]
        ep["steps"].append(info)
        ep["done"] = res["done"]
        ep["turn"] = res["observation"]["turn"]
        if res["done"]:
            ep["reward"] = float(res["reward"])
        score = float(info["critique"]) if self.turn_score == "critique" else 0.0
        extra = {"critique": info["critique"], "kind": info["kind"], "malformed": info["malformed"],
                 "truth_mass": info["truth_mass"], "measures": info.get("measures")}
        text = res["observation"]["text"] or "The episode is over."
        return res["done"], text, score, extra

    async def calculate_score(self, instance_id=None, **kwargs):
        return self._episodes[instance_id]["reward"]

    async def finalize_interaction(self, instance_id=None, **kwargs):
        ep = self._episodes.pop(instance_id, None)
        if ep is not None:
            try:
                await asyncio.to_thread(self.client.close, ep["id"], ep["token"])
            except Exception:  # already expired or closed: nothing to release
                pass

    # --- for the advantage correction and for logs ----------------------

    def critiques(self, instance_id):
        """The per-step critiques z of a live interaction, in turn order."""
        return [s["critique"] for s in self._episodes[instance_id]["steps"]]

    def turn(self, instance_id):
        """The next turn {index, kind, final, max_words}, or None once done."""
        return self._episodes[instance_id]["turn"]

    def measures(self, instance_id):
        """The episode's measures (reward, success, I_AS, C_BT, ...) once done."""
        steps = self._episodes[instance_id]["steps"]
        return steps[-1].get("measures") if steps else None


def dataset_row(client, task, split, index, config=None, interaction_name="arew"):
    """One verl dataset row for instance index: the prompt as chat messages
    (the system prompt, then the first observation) and the
    interaction_kwargs that make start_interaction open the same episode."""
    res = client.reset(task, split, index=index, config=config)
    client.close(res["episode_id"], token=res["token"])
    obs = res["observation"]
    kwargs = {"name": interaction_name, "task": task, "split": split, "index": index}
    if config is not None:
        kwargs["config"] = config
    return {
        "prompt": [{"role": "system", "content": obs["system"]}, {"role": "user", "content": obs["text"]}],
        "extra_info": {"interaction_kwargs": kwargs},
    }
