#!/bin/sh
# run.sh: on the GPU machine, in the folder build.sh made. Runs the parity
# tests (cuda and engine), compute-sanitizer's four tools over the cuda
# tests, the Go benchmarks, then the PyTorch twin at the same shapes, all
# logged to run.log; then summarize.py writes summary.json and report.md
# (the targets met or missed). About 2 minutes on an H200; BENCHTIME
# (default 1s) trades accuracy for time. With OUT set, the logs, the
# summary and the report are copied there too.
set -eu
cd "$(dirname "$0")"
main() {
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "== parity tests"
for t in cuda engine; do
	run=.
	[ "$t" = engine ] && run='Device|OnCUDA'
	if ./$t.test -test.run "$run" -test.count 1 -test.v >parity_$t.txt 2>&1; then
		echo "$t: PASS ($(grep -c '^--- PASS' parity_$t.txt) tests)"
	else
		echo "$t: FAIL"; grep -E -e '--- FAIL|Error|error' parity_$t.txt | head -40
	fi
done
echo "== compute-sanitizer"
: >sanitizer.txt
for tool in memcheck racecheck synccheck initcheck; do
	echo "== $tool" >>sanitizer.txt
	compute-sanitizer --tool $tool ./cuda.test -test.run . -test.count 1 >>sanitizer.txt 2>&1 || true
	echo "$tool: $(tail -1 sanitizer.txt)"
done
echo "== Go benchmarks"
./cuda.test -test.run '^$' -test.bench . -test.benchtime "${BENCHTIME:-1s}" | tee go_bench.txt
echo "== PyTorch twin"
python3 torch_twin.py --go go_bench.txt | tee table.md
}
main 2>&1 | tee run.log
python3 summarize.py .
if [ -n "${OUT:-}" ]; then
	cp run.log parity_cuda.txt parity_engine.txt sanitizer.txt summary.json report.md "$OUT/"
fi
