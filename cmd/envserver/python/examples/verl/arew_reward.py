"""verl v0.7.0's custom reward function for arew, and the hook for AREW's advantage.

custom_reward_function.path points here (run_grpo.sh). verl imports this
file in the driver (TaskRunner -> load_reward_manager) and in the reward
workers; in the driver, with AREW_LAMBDA > 0 in the environment, it wraps
verl.trainer.ppo.ray_trainer.compute_advantage so that every advantage
gets A-hat = A + lambda * u from the episodes' critiques (AREW_MARGIN_MODE:
step, the default, step_spread, minority_fixed or abs_sum).
arew_env.verl_trainer holds the code and says what was checked in verl.
"""

import os

from arew_env.verl_trainer import compute_score, install_advantage_patch  # noqa: F401 (compute_score is the entry point)

_lambda = float(os.environ.get("AREW_LAMBDA", "0") or 0)
if _lambda > 0:
    try:
        install_advantage_patch(_lambda, os.environ.get("AREW_MARGIN_MODE", "step"))
    except ImportError:  # a process without verl's trainer (a reward worker): nothing to patch
        pass
