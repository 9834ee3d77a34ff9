#!/usr/bin/env python3
"""Write a verl v0.7.0 dataset for one of arew's tasks or environments.

    python3 write_dataset.py --base-url http://127.0.0.1:8080 --task alfworld --out DIR [--train N] [--test N]

Writes DIR/train.json and DIR/test.json, JSON Lines (one row per
instance), which verl v0.7.0's RLHFDataset reads as it reads parquet (it
loads ".json" files with datasets' json loader: verl/utils/dataset/rl_dataset.py
at v0.7.0); with pyarrow installed, --parquet also writes .parquet twins.
Each row is arew_env.verl_interaction.dataset_row: the prompt (the system
prompt and the first observation, from a reset of that instance), and
extra_info.interaction_kwargs that make ArewInteraction open the same
episode. Standard library and the client only.
"""

import argparse
import json
import os
import sys

from arew_env import ArewEnvClient
from arew_env.verl_interaction import dataset_row


def write(client, task, split, count, config, path):
    rows = [dataset_row(client, task, split, i, config=config) for i in range(count)]  # past the split: a 400
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", default="http://127.0.0.1:8080")
    ap.add_argument("--task", default="flodial-easy")
    ap.add_argument("--config", default=None, help="the task's config overrides, a JSON object")
    ap.add_argument("--out", required=True)
    ap.add_argument("--train", type=int, default=256)
    ap.add_argument("--test", type=int, default=64)
    ap.add_argument("--test-split", default="test", help="test, or test-ood where the environment has one")
    ap.add_argument("--parquet", action="store_true", help="also write .parquet (needs pyarrow)")
    args = ap.parse_args()
    client = ArewEnvClient(args.base_url)
    client.wait_healthy()
    config = json.loads(args.config) if args.config else None
    os.makedirs(args.out, exist_ok=True)
    for split, want, name in (("train", args.train, "train"), (args.test_split, args.test, "test")):
        rows = write(client, args.task, split, want, config, os.path.join(args.out, name + ".json"))
        print(f"{name}.json: {len(rows)} rows of {args.task} ({split} split)")
        if args.parquet:
            import pyarrow as pa
            import pyarrow.parquet as pq
            pq.write_table(pa.Table.from_pylist(rows), os.path.join(args.out, name + ".parquet"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
