"""ArewInteraction: arew's environments in verl's multi-turn interaction interface.

Written against verl v0.7.0 (January 2026), whose multi-turn rollout is the
agent loop "tool_agent" (verl/experimental/agent_loop/tool_agent_loop.py),
checked in its source: for each sample it calls
start_interaction(request_id, **interaction_kwargs) (the dataset row's
extra_info.interaction_kwargs, "name" included), then after every assistant
turn generate_response(request_id, messages, **interaction_kwargs) ->
(should_terminate, response_text, turn_score, extra), appends the text as
the next user message and the score to the sample's turn_scores, until
should_terminate or its turn limit. It never calls calculate_score nor
finalize_interaction (neither did v0.4.1-v0.6.1's rollouts), and
generate_response's extra is dropped. So this class

  * closes the server's episode itself as soon as a step ends it,
  * puts what the trainer needs into the turn scores (turn_score below),
    the only channel from an interaction to the trainer: the turn_scores
    reach the reward function (extra_info["turn_scores"], with the reward
    loop, v0.7.0's default) and the batch (non_tensor_batch["turn_scores"],
    read by arew_env.verl_trainer),
  * keeps a bounded record per sample (max_records) for its own accessors.

calculate_score and finalize_interaction exist for rollouts that call them.
It subclasses verl's BaseInteraction when verl is installed and runs
without it.

    start_interaction    POST /reset {task, split, index, config} -> episode_id, token
    generate_response    POST /step  {episode_id, token, action: the last assistant message}
                         (and POST /close once the episode is over)

Config (the "config:" block of verl's interaction YAML):
    base_url     the server (default http://127.0.0.1:8080)
    task, split  defaults for samples whose interaction_kwargs omit them
    turn_score   "arew" (default): each turn scores its critique z (0 in a
                 text environment, which has none), and the turn that ends
                 the episode scores pack_turn_score(z, outcome); unpack with
                 unpack_turn_scores. "outcome": 0, and the outcome on the
                 last turn (the sum is the reward). "critique": z only.
                 "none": 0.0.
    max_records  samples remembered at most (default 16384); the oldest go
                 first, an unfinished one is closed on the server
    timeout      seconds per request (default 30)
"""

import asyncio
import collections

from .client import ArewEnvClient

try:  # verl present: be a real BaseInteraction
    from verl.interactions.base import BaseInteraction
except ImportError:  # verl absent: the same shape, standard library only
    class BaseInteraction:
        def __init__(self, config):
            self.config = config
            self.name = config.get("name", "interaction_agent")

TURN_SCORES = ("arew", "outcome", "critique", "none")

# The turn that ends an episode scores ENDED + 3 z + r: with z in {-1, 0, 1}
# and the outcome r in [-1, 1] (every served task and environment), the
# three bands [6, 8], [9, 11], [12, 14] are apart from each other and from
# the other turns' z in [-1, 1].
ENDED = 10.0


def pack_turn_score(critique, outcome=None):
    """The "arew" turn score: z, or, on the turn that ends the episode,
    ENDED + 3 z + outcome."""
    z = int(critique or 0)
    if z not in (-1, 0, 1):
        raise ValueError(f"critique {critique!r} is not -1, 0 or 1")
    if outcome is None:
        return float(z)
    if not -1.0 <= outcome <= 1.0:
        raise ValueError(f"outcome {outcome!r} outside [-1, 1] cannot be packed")
    return ENDED + 3.0 * z + float(outcome)


def unpack_turn_scores(scores):
    """(critiques, outcome, ended) from one sample's "arew" turn scores.

    An episode cut by the rollout's turn limit has not ended: its outcome is
    0.0 and ended is False."""
    critiques, outcome, ended = [], 0.0, False
    for s in scores:
        s = float(s)
        if s > ENDED / 2:
            z = int(round((s - ENDED) / 3.0))
            critiques.append(z)
            outcome, ended = s - ENDED - 3.0 * z, True
        else:
            critiques.append(int(round(s)))
    return critiques, outcome, ended


class ArewInteraction(BaseInteraction):
    def __init__(self, config):
        super().__init__(config)
        self.client = ArewEnvClient(config.get("base_url", "http://127.0.0.1:8080"),
                                    timeout=float(config.get("timeout", 30.0)))
        self.default_task = config.get("task", "flodial-easy")
        self.default_split = config.get("split", "train")
        self.turn_score = config.get("turn_score", "arew")
        if self.turn_score not in TURN_SCORES:
            raise ValueError(f"turn_score {self.turn_score!r}: want one of {', '.join(TURN_SCORES)}")
        self.max_records = int(config.get("max_records", 16384))
        # instance_id -> {"id", "token", "reward", "steps": [info, ...], "done", "turn"}, oldest first
        self._episodes = collections.OrderedDict()

    async def start_interaction(self, instance_id=None, task=None, split=None, index=0, config=None, **kwargs):
        res = await asyncio.to_thread(self.client.reset, task or self.default_task,
                                      split or self.default_split, index=index, config=config)
        if instance_id is None:
            instance_id = res["episode_id"]
        old = self._episodes.pop(instance_id, None)
        if old is not None:
            await self._release(old)
        self._episodes[instance_id] = {"id": res["episode_id"], "token": res["token"], "reward": 0.0, "steps": [],
                                       "done": False, "turn": res["observation"]["turn"]}
        while len(self._episodes) > self.max_records:
            _, ep = self._episodes.popitem(last=False)
            await self._release(ep)
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
        z = info.get("critique") or 0  # a text environment has no critiques
        outcome = None
        if res["done"]:
            ep["reward"] = outcome = float(res["reward"])
            await self._release(ep)  # verl will not call finalize_interaction
        score = {"arew": lambda: pack_turn_score(z, outcome),
                 "outcome": lambda: outcome or 0.0,
                 "critique": lambda: float(z),
                 "none": lambda: 0.0}[self.turn_score]()
        extra = {"critique": info.get("critique"), "kind": info["kind"], "malformed": info["malformed"],
                 "truth_mass": info.get("truth_mass"), "measures": info.get("measures")}
        text = res["observation"]["text"] or "The episode is over."
        return res["done"], text, score, extra

    async def calculate_score(self, instance_id=None, **kwargs):
        return self._episodes[instance_id]["reward"]

    async def finalize_interaction(self, instance_id=None, **kwargs):
        ep = self._episodes.pop(instance_id, None)
        if ep is not None:
            await self._release(ep)

    async def _release(self, ep):
        """Close ep's server episode once (a finished or forgotten one)."""
        if ep.get("closed"):
            return
        ep["closed"] = True
        try:
            await asyncio.to_thread(self.client.close, ep["id"], ep["token"])
        except Exception:  # already expired or closed: nothing to release
            pass

    # --- for the advantage correction and for logs ----------------------

    def critiques(self, instance_id):
        """The per-step critiques z of a remembered sample, in turn order
        (0 for the steps of a text environment)."""
        return [s.get("critique") or 0 for s in self._episodes[instance_id]["steps"]]

    def turn(self, instance_id):
        """The next turn {index, kind, final, max_words}, or None once done."""
        return self._episodes[instance_id]["turn"]

    def measures(self, instance_id):
        """The episode's measures once done."""
        steps = self._episodes[instance_id]["steps"]
        return steps[-1].get("measures") if steps else None


def dataset_row(client, task, split, index, config=None, interaction_name="arew"):
    """One verl dataset row for instance index, with the columns verl
    v0.7.0's RL dataset and reward loop read: the prompt as chat messages
    (the system prompt, then the first observation), data_source,
    reward_model.ground_truth (unused: the server judges), agent_name
    "tool_agent" (the agent loop that drives interactions) and
    extra_info.interaction_kwargs, which make start_interaction open the
    same episode: resets are deterministic."""
    res = client.reset(task, split, index=index, config=config)
    client.close(res["episode_id"], token=res["token"])
    obs = res["observation"]
    kwargs = {"name": interaction_name, "task": task, "split": split, "index": index}
    if config is not None:
        kwargs["config"] = config
    return {
        "data_source": f"arew/{task}",
        "prompt": [{"role": "system", "content": obs["system"]}, {"role": "user", "content": obs["text"]}],
        "ability": "agent",
        "reward_model": {"style": "rule", "ground_truth": ""},
        "agent_name": "tool_agent",
        "extra_info": {"split": split, "index": index, "interaction_kwargs": kwargs},
    }
