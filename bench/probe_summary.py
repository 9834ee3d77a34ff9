"""summary.json and report.md of an ACT probe folder, from its eval files.

TestActorTermProbe (rl/act/actor_long_test.go, -tags long) writes one JSON
file per cell, <folder>/eval/<group>/probe-<env>-<seed>.json, with every
arm's greedy success, next-action accuracy, choice accuracy and drift
curve. This script gathers them, one row per cell and arm, into
<folder>/summary.json and renders <folder>/report.md, so the numbers a
probe's README quotes can be checked against the files. It also pairs
each arm with prompting from the same cell, per group and environment:
the table column's difference d (success, or next action where an
environment has no success) in points per seed, its mean D, the standard
error sd(d)/sqrt(n) (sample sd, n - 1), how many seeds have d > 0, and
the same differences for next action against prompting (pi_theta0) and
for choice against the act arm:

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


def mean_se(xs):
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, None
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, (var / n) ** 0.5


def paired_of(rows):
    """One entry per (group, env, arm other than prompting): the paired differences over seeds."""
    cells = {}
    for r in rows:
        cells.setdefault((r["group"], r["env"], r["seed"]), {})[r["arm"]] = r
    arms = {}
    for (group, env, seed), by_arm in cells.items():
        base = by_arm.get("prompting")
        if base is None:
            continue
        for arm, r in by_arm.items():
            if arm == "prompting":
                continue
            e = arms.setdefault((group, env, arm), {"seeds": [], "d": [], "next_action": [], "choice_vs_act": []})
            col = "success" if base["success"] is not None else "next_action"
            e["seeds"].append(seed)
            e["d"].append(100 * (r[col] - base[col]))
            e["next_action"].append(100 * (r["next_action"] - base["next_action"]))
            act = by_arm.get("act")
            e["choice_vs_act"].append(None if act is None else 100 * (r["choice"] - act["choice"]))
    out = []
    for (group, env, arm), e in sorted(arms.items()):
        order = sorted(range(len(e["seeds"])), key=lambda i: e["seeds"][i])
        d = [e["d"][i] for i in order]
        m, se = mean_se(d)
        out.append({
            "group": group, "env": env, "arm": arm,
            "column": "next_action" if env == "sciworld" else "success",
            "seeds": [e["seeds"][i] for i in order],
            "d": [round(x, 4) for x in d],
            "mean": round(m, 4), "se": None if se is None else round(se, 4),
            "positive": sum(x > 0 for x in d),
            "next_action_vs_prompting": [round(e["next_action"][i], 4) for i in order],
            "choice_vs_act": [None if e["choice_vs_act"][i] is None else round(e["choice_vs_act"][i], 4) for i in order],
        })
    return out


def paired_report(paired):
    def pts(xs):
        return " ".join("–" if x is None else f"{x:+.1f}" for x in xs)
    lines = [
        "",
        "## Paired with prompting",
        "",
        "Per group, environment and arm: d = the arm's table column − prompting's in the same cell "
        "(success; ScienceWorld: next action), in points, by seed; D its mean, SE = sd(d)/√n; "
        "d > 0 the seeds where the arm is above; then next action − prompting's (π_θ0's) and "
        "choice − act's, by seed.",
        "",
        "| group | env | arm | seeds | d | D | SE | d > 0 | next action − π_θ0 | choice − act |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in paired:
        se = "–" if p["se"] is None else f"{p['se']:.1f}"
        lines.append(f"| {p['group']} | {p['env']} | {p['arm']} | {' '.join(map(str, p['seeds']))} | "
                     f"{pts(p['d'])} | {p['mean']:+.1f} | {se} | {p['positive']} of {len(p['d'])} | "
                     f"{pts(p['next_action_vs_prompting'])} | {pts(p['choice_vs_act'])} |")
    return "\n".join(lines) + "\n"


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
    summary["paired"] = paired_of(summary["rows"])
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write(report(summary, os.path.basename(os.path.abspath(folder))) + paired_report(summary["paired"]))


if __name__ == "__main__":
    main()
