"""summarize.py DIR [--commit REV]: summary.json and report.md of a GPU run.

DIR holds what run.sh writes: run.log (nvidia-smi's line, the parity
verdicts, the Go benchmarks and the PyTorch twin's table), parity_cuda.txt
and parity_engine.txt (verbose go test), and sanitizer.txt (compute-
sanitizer's output, a section "== <tool>" per tool). It reads
the figures back from those files and holds them to package cuda's targets
(cuda/doc.go): the token log-prob forward + backward at 32768 x 32768 at
>= 0.80 of the copy bandwidth and >= 2x PyTorch; the margin correction on
4096 x 256 tokens at >= 0.50 of the copy bandwidth and >= 5x torch ops.
Standard library only: it runs here on committed logs, e.g.

    python3 bench/gpu/summarize.py docs/results/gpu-h200
"""

import argparse
import json
import os
import re

from gobench import fastest, read_go

def sanitizers(d):
    """tool -> the last line of its section ("ERROR SUMMARY: 0 errors", ...)."""
    out, tool = {}, None
    for line in open(os.path.join(d, "sanitizer.txt")):
        m = re.match(r"^== (\w+)", line)
        if m:
            tool = m.group(1)
        elif tool and line.strip():
            out[tool] = line.strip()
    return {t: v.lstrip("= ").strip() for t, v in out.items()}


def parity(d, name):
    """verdict and counts of one verbose go test log."""
    text = open(os.path.join(d, f"parity_{name}.txt")).read()
    passed = len(re.findall(r"^\s*--- PASS", text, re.M))
    failed = len(re.findall(r"^\s*--- FAIL", text, re.M))
    ok = failed == 0 and re.search(r"^PASS$", text, re.M) is not None
    return {"pass": ok, "passed": passed, "failed": failed}


def torch_rows(log):
    """(op, shape) -> torch ms from the twin's table in run.log, and the
    copy bandwidths of its first line."""
    rows, copy = {}, {}
    for line in open(log):
        m = re.match(r"^device: .*Go copy kernel (\d+) GB/s, torch copy_ (\d+) GB/s", line)
        if m:
            copy = {"go_gbs": float(m.group(1)), "torch_gbs": float(m.group(2))}
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].startswith(("logprob", "margin")):
            try:
                rows[(cells[0], cells[1])] = float(cells[4])
            except ValueError:
                pass
    return rows, copy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--commit", help="the commit the binaries were built at (default: DIR/commit.txt)")
    a = ap.parse_args()
    d = a.dir
    log = os.path.join(d, "run.log")
    commit = a.commit
    if not commit and os.path.exists(os.path.join(d, "commit.txt")):
        commit = open(os.path.join(d, "commit.txt")).read().strip()
    device = open(log).readline().strip()
    go = read_go(log)
    torch, copy = torch_rows(log)

    def target(label, bench_fmt, torch_key, want_frac, want_speedup):
        g = fastest(go, bench_fmt)
        t = torch.get(torch_key)
        speedup = t / (g["s"] * 1e3) if g and t else None
        frac = g.get("copy_frac")
        return {"target": label, "version": g.get("v"), "ms": g["s"] * 1e3 if g else None,
                "copy_frac": frac, "torch_ms": t, "torch_over_go": speedup,
                "want_copy_frac": want_frac, "want_torch_over_go": want_speedup,
                "copy_frac_met": frac is not None and frac >= want_frac,
                "torch_met": speedup is not None and speedup >= want_speedup}

    summary = {
        "device": device,
        "commit": commit,
        "parity": {"cuda": parity(d, "cuda"), "engine": parity(d, "engine")},
        "sanitizers": sanitizers(d),
        "copy": copy,
        "targets": [
            target("token log-prob forward + backward, 32768 x 32768", "TokenLogProb/fwdbwd/v{}/32768x32768",
                   ("logprob fwdbwd", "32768×32768"), 0.80, 2),
            target("AREW margin, step mode, adding, 4096 x 256 tokens", "Margin/v{}/step/acc=true/4096x256",
                   ("margin step (+=)", "4096×256 tokens"), 0.50, 5),
            target("AREW margin, step_spread mode, adding, 4096 x 256 tokens", "Margin/v{}/step_spread/acc=true/4096x256",
                   ("margin step_spread (+=)", "4096×256 tokens"), 0.50, 5),
        ],
        "benchmarks": {k: {"ms": v["s"] * 1e3, "gb_s": v.get("GB/s"), "copy_frac": v.get("copy_frac")}
                       for k, v in go.items()},
    }
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, ensure_ascii=False)
        f.write("\n")

    def fmt(x, spec):
        return "–" if x is None else format(x, spec)

    r = [f"# The CUDA kernels on a GPU\n",
         f"{device}; binaries built at {commit or 'an unrecorded commit'}. Made by "
         f"`python3 bench/gpu/summarize.py` from the logs beside it (run.log holds every figure).\n",
         "## Correctness\n",
         "| check | result |", "|---|---|"]
    for name, p in summary["parity"].items():
        r.append(f"| parity tests, {name} | {'pass' if p['pass'] else 'FAIL'}: {p['passed']} passed, {p['failed']} failed |")
    for tool, last in summary["sanitizers"].items():
        r.append(f"| compute-sanitizer {tool} | {last} |")
    r += ["", "## Targets\n",
          f"Copy bandwidth: Go's copy kernel {fmt(copy.get('go_gbs'), '.0f')} GB/s, torch copy_ {fmt(copy.get('torch_gbs'), '.0f')} GB/s.\n",
          "| target | fastest version | ms | copy_frac | torch ms | torch / Go | copy_frac goal | speed-up goal |",
          "|---|---|---:|---:|---:|---:|---|---|"]
    for t in summary["targets"]:
        r.append(f"| {t['target']} | v{t['version']} | {fmt(t['ms'], '.4f')} | {fmt(t['copy_frac'], '.2f')} | "
                 f"{fmt(t['torch_ms'], '.3f')} | {fmt(t['torch_over_go'], '.2f')} | "
                 f"≥ {t['want_copy_frac']:.2f}: {'met' if t['copy_frac_met'] else 'missed'} | "
                 f"≥ {t['want_torch_over_go']}: {'met' if t['torch_met'] else 'missed'} |")
    r += ["", "## Every Go benchmark\n", "| benchmark | ms | GB/s | copy_frac |", "|---|---:|---:|---:|"]
    for k, v in summary["benchmarks"].items():
        r.append(f"| {k} | {v['ms']:.4f} | {fmt(v['gb_s'], '.0f')} | {fmt(v['copy_frac'], '.3f')} |")
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(r) + "\n")


if __name__ == "__main__":
    main()
