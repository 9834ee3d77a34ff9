#!/usr/bin/env bash
# GRPO + AREW with verl v0.7.0 on arew's environment server: the overrides
# this example needs, on top of verl's own defaults (ppo_trainer.yaml at
# v0.7.0; the field names below were checked there). Not run by CI: verl,
# a GPU and a model are needed. Dry run of the same path, standard library
# only: python3 dry_run.py --base-url URL --data DIR/train.json
#
#   go run ./cmd/envserver -addr 0.0.0.0:8080 -max-per-client 16384 -idle 5m &
#   python3 write_dataset.py --base-url http://HOST:8080 --task flodial-easy --out ~/data/arew
#   AREW_LAMBDA=3 bash run_grpo.sh
#
# -max-per-client: every rollout worker of one node counts as one client
# (its IP); the live episodes of a step are train_batch_size x rollout.n.
# Episodes end (and are closed) when the environment says so; those the
# turn limit cuts short expire after -idle.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="${DATA:-$HOME/data/arew}"
lambda="${AREW_LAMBDA:-0}"   # 0: plain GRPO; > 0: A-hat = A + lambda u (arew_reward.py installs it)

python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="$data/train.json" \
  data.val_files="$data/test.json" \
  data.return_raw_chat=True \
  data.max_prompt_length=1024 \
  data.max_response_length=2048 \
  actor_rollout_ref.model.path="${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}" \
  actor_rollout_ref.rollout.name=sglang \
  actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.rollout.multi_turn.enable=True \
  actor_rollout_ref.rollout.multi_turn.max_assistant_turns=12 \
  actor_rollout_ref.rollout.multi_turn.interaction_config_path="$here/interaction_config.yaml" \
  actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent \
  reward_model.use_reward_loop=True \
  custom_reward_function.path="$here/arew_reward.py" \
  custom_reward_function.name=compute_score \
  +ray_kwargs.ray_init.runtime_env.env_vars.AREW_LAMBDA="'$lambda'" \
  trainer.total_epochs=1 "$@"
