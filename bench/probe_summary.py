"""summary.json and report.md of an ACT probe folder, from its eval files.

TestActorTermProbe (rl/act/actor_long_test.go, -tags long) writes one JSON
file per cell, <folder>/eval/<group>/probe-<env>-<seed>.json, with every
arm's greedy success, next-action accuracy, choice accuracy and drift
curve. This script gathers them, one row per cell and arm, into
<folder>/summary.json and renders <folder>/report.md, so the numbers a
probe's README quotes can be checked against the files:

    python3 bench/probe_summary.py docs/results/act-kl-anchor
"""

import glob
import json
import os
import sys


def pct(x):
    return "–" if x is None else f"{100 * x:.1f}"


def rows_of(folder):
    rows, updates, every = [], None, None
    for path in sorted(glob.glob(os.path.join(folder, "eval", "*", "probe-*.json"))):
        with open(path) as f:
            cell = json.load(f)
        updates, every = cell["updates"], cell["every"]
        for arm in cell["arms"]:
            rows.append({
                "group": os.path.basename(os.path.dirname(path)),
                "env": cell["env"],
                "seed": cell["seed"],
                "arm": arm["arm"],
                "success": arm.get("success"),
                "next_action": arm["next_action"],
                "choice": arm["choice"],
                "drift": arm["drift"],
                "file": os.path.relpath(path, folder),
            })
    return {"updates": updates, "every": every, "rows": rows}


def report(summary, name):
    lines = [
        f"# {name}: every measured number",
        "",
        "Made by `python3 bench/probe_summary.py` from eval/ (the runner's files; README.md has the "
        "commands). Percent: greedy success under the trie (none for ScienceWorld), next-action "
        "accuracy on the held-out expert states, choice accuracy on the held-out critic examples; "
        f"the last column is next action on 150 held-out states at updates 0, {summary['every']}, …, "
        f"{summary['updates']} of the ACT stage.",
        "",
        "| group | env | seed | arm | success % | next action % | choice % | next action through the stage |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in summary["rows"]:
        drift = " ".join(f"{x:.2f}" for x in r["drift"])
        lines.append(f"| {r['group']} | {r['env']} | {r['seed']} | {r['arm']} | {pct(r['success'])} | "
                     f"{pct(r['next_action'])} | {pct(r['choice'])} | {drift} |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: probe_summary.py <probe folder>")
    folder = sys.argv[1]
    summary = rows_of(folder)
    if not summary["rows"]:
        sys.exit(f"{folder}: no eval/*/probe-*.json")
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write(report(summary, os.path.basename(os.path.abspath(folder))))


if __name__ == "__main__":
    main()
