"""The trainer side of arew in verl: the reward function and AREW's advantage.

Written against verl v0.7.0 (January 2026), checked in its source:

  * a custom reward function (custom_reward_function.path / .name) is
    called as compute_score(data_source, solution_str, ground_truth,
    extra_info, ...); with the reward loop (reward_model.use_reward_loop,
    the default), extra_info holds the sample's turn_scores
    (verl/experimental/reward_loop/reward_manager/naive.py);
  * the agent loop puts each sample's turn_scores into the batch
    (non_tensor_batch["turn_scores"], verl/experimental/agent_loop/agent_loop.py),
    and the driver computes advantages with
    verl.trainer.ppo.ray_trainer.compute_advantage(data, ...), which a
    registered estimator (core_algos.register_adv_est) cannot extend with
    per-turn data: its arguments are token_level_rewards, response_mask,
    index and config only. So AREW wraps compute_advantage: the usual
    estimator (GRPO, GAE, ...) first, then A-hat = A + lambda * u on the
    response tokens (install_advantage_patch). The driver imports the
    custom reward function's module (TaskRunner -> load_reward_manager),
    so examples/verl/arew_reward.py installs the patch there.

Both read ArewInteraction's turn scores with turn_score: arew
(verl_interaction.unpack_turn_scores). Standard library only; torch and
verl are imported when the patch is installed.
"""

from .advantages import arew_correction
from .verl_interaction import unpack_turn_scores


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None, **kwargs):
    """verl's reward function: the environment's outcome, read from the
    sample's turn scores (0.0 for an episode the turn limit cut short)."""
    scores = (extra_info or {}).get("turn_scores")
    if scores is None:
        raise KeyError("extra_info has no turn_scores: use verl's reward loop (reward_model.use_reward_loop: true) "
                       "and ArewInteraction with turn_score: arew")
    _, outcome, _ = unpack_turn_scores(scores)
    return outcome


def _rows(x):
    return x.tolist() if hasattr(x, "tolist") else [list(r) for r in x]


def correct_batch_advantages(data, lam, mode="step"):
    """Add lambda * u to data.batch["advantages"] from each sample's
    critiques (data.non_tensor_batch["turn_scores"]) and response mask
    (data.batch["response_mask"], each assistant turn a run of 1s). The
    rewards and returns are left alone. Tensors are rebuilt with the
    advantages' dtype and device; plain lists stay lists."""
    adv = data.batch["advantages"]
    critiques = [unpack_turn_scores(list(s))[0] for s in data.non_tensor_batch["turn_scores"]]
    rows = arew_correction(_rows(adv), _rows(data.batch["response_mask"]), critiques, lam, mode)
    data.batch["advantages"] = adv.new_tensor(rows) if hasattr(adv, "new_tensor") else rows
    return data


def install_advantage_patch(lam, mode="step"):
    """Wrap verl.trainer.ppo.ray_trainer.compute_advantage so that every
    advantage the driver computes gets AREW's correction. Idempotent; call
    it in the driver process (examples/verl/arew_reward.py does at import)."""
    from verl.trainer.ppo import ray_trainer

    current = ray_trainer.compute_advantage
    original = getattr(current, "_arew_original", current)

    def compute_advantage(data, *args, **kwargs):
        return correct_batch_advantages(original(data, *args, **kwargs), lam, mode)

    compute_advantage._arew_original = original
    ray_trainer.compute_advantage = compute_advantage
    return compute_advantage
