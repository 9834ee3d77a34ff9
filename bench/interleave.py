"""Interleaved A/B runs of benchmark commands, timed by CPU as well as wall.

On a shared machine a benchmark's wall time mostly measures the other jobs.
The CPU time the process itself used (user + system, from wait4) is
steadier. It still includes the process's setup, so each comparison can
carry a setup-only arm (the same binary at one iteration, or a
sub-benchmark pattern that matches nothing) to subtract. Give benchmarks
a fixed iteration count (-test.benchtime Nx): with a time-based count a
faster arm runs more calls, and per-process CPU times then do not compare.

Each round runs every arm once, as a fresh process, in an order that
rotates from round to round. Each run is one JSON line in --out: the arm,
round, start time, load average, wall and CPU seconds, and every
Benchmark line's metrics.

    python3 bench/interleave.py run --out ab.jsonl --rounds 5 --dir model \\
        "old=GOMAXPROCS=1 /tmp/old.test -test.run '^$' -test.bench 'TrainStep/small/B=16/T=128$' -test.benchtime 60x" \\
        "new=GOMAXPROCS=1 /tmp/new.test -test.run '^$' -test.bench 'TrainStep/small/B=16/T=128$' -test.benchtime 60x" \\
        "setup=GOMAXPROCS=1 /tmp/new.test -test.run '^$' -test.bench 'TrainStep/small/B=16/T=128$' -test.benchtime 1x"
    python3 bench/interleave.py summary ab.jsonl --base old --setup setup --per 59

summary prints, for each arm, the median CPU time per operation,
(CPU - setup's CPU in the same round) / per, and the median and range
over rounds of each arm's ratio to --base. It also prints the medians of
the ns/op that the benchmarks themselves reported (wall time). Arms of
different binaries take their own setup arms: --setup old:oldsetup,new:newsetup.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

NUM = re.compile(r"^[-+0-9.eE]+$")


def bench_lines(text):
    out = {}
    for line in text.splitlines():
        if not line.startswith("Benchmark"):
            continue
        f = line.split()
        vals = {f[k + 1]: float(f[k]) for k in range(2, len(f) - 1) if NUM.match(f[k]) and not NUM.match(f[k + 1])}
        out[f[0]] = vals
    return out


def run(args):
    arms = []
    for a in args.arms:
        label, sep, cmd = a.partition("=")
        if not sep or not label or not cmd:
            sys.exit(f"interleave: want label=command, got {a!r}")
        arms.append((label, cmd))
    with open(args.out, "a") as f:
        for r in range(args.rounds):
            k = r % len(arms)
            for label, cmd in arms[k:] + arms[:k]:
                load = float(open("/proc/loadavg").read().split()[0])
                t0 = time.time()
                p = subprocess.Popen(["bash", "-c", cmd], cwd=args.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                text = p.stdout.read().decode(errors="replace")
                _, status, ru = os.wait4(p.pid, 0)
                rec = dict(round=r + 1, arm=label, start=time.strftime("%H:%M:%S", time.gmtime(t0)), load=load,
                           wall=time.time() - t0, cpu=ru.ru_utime + ru.ru_stime, status=status, bench=bench_lines(text))
                if status != 0 or not rec["bench"]:
                    rec["output"] = text[-2000:]
                f.write(json.dumps(rec) + "\n")
                f.flush()


def summary(args):
    recs = [json.loads(line) for line in open(args.file)]
    rounds = {}
    arms = []
    for r in recs:
        rounds.setdefault(r["round"], {})[r["arm"]] = r
        if r["arm"] not in arms:
            arms.append(r["arm"])
    setup_of = {}  # arm -> its setup-only arm
    for part in (args.setup or "").split(","):
        arm, sep, setup = part.partition(":")
        if part and not sep:
            setup_of = {a: part for a in arms}
        elif part:
            setup_of[arm] = setup
    measured = [a for a in arms if a not in setup_of.values()]
    if args.base not in measured:
        sys.exit(f"interleave: no arm {args.base!r} in {args.file}")
    full = [rd for _, rd in sorted(rounds.items()) if all(a in rd for a in arms)]
    if not full:
        sys.exit("interleave: no round has every arm")

    def per_op(rd, a):
        setup = rd[setup_of[a]]["cpu"] if a in setup_of else 0.0
        return (rd[a]["cpu"] - setup) / args.per

    loads = [r["load"] for r in recs]
    print(f"{args.file}: {len(full)} rounds, load average {min(loads):.1f}-{max(loads):.1f}")
    for a in measured:
        cpu = [per_op(rd, a) for rd in full]
        ratio = [per_op(rd, a) / per_op(rd, args.base) for rd in full]
        ns = [v["ns/op"] for rd in full for v in rd[a]["bench"].values() if "ns/op" in v]
        line = f"  {a:12s} CPU per op {statistics.median(cpu):.6g} s"
        if a != args.base:
            line += f", /{args.base} {statistics.median(ratio):.3f} ({min(ratio):.3f}-{max(ratio):.3f})"
        if ns:
            line += f"; reported wall {statistics.median(ns) / 1e6:.4g} ms/op"
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the arms interleaved")
    r.add_argument("--out", required=True, help="JSON lines file, appended to")
    r.add_argument("--rounds", type=int, default=5)
    r.add_argument("--dir", default=".", help="working directory of the commands")
    r.add_argument("arms", nargs="+", help="label=shell command")
    s = sub.add_parser("summary", help="medians and per-round ratios")
    s.add_argument("file")
    s.add_argument("--base", required=True, help="the arm the others are divided by")
    s.add_argument("--setup", help="the setup-only arm whose CPU time each round subtracts, or one per arm: "
                   "arm:setup,arm:setup")
    s.add_argument("--per", type=float, default=1.0, help="operations per process beyond the setup arm's")
    args = ap.parse_args()
    run(args) if args.cmd == "run" else summary(args)


if __name__ == "__main__":
    main()
