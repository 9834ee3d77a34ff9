#!/bin/sh
# run.sh: on the GPU machine, in the folder build.sh made. Runs the parity
# tests (cuda and engine), then the Go benchmarks, then the PyTorch twin at
# the same shapes, and prints the side-by-side table (also in table.md).
# About 3 minutes on an H200; BENCHTIME (default 1s) trades accuracy for
# time. With OUT set, the logs and the table are copied there too.
set -eu
cd "$(dirname "$0")"
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
echo "== Go benchmarks"
./cuda.test -test.run '^$' -test.bench . -test.benchtime "${BENCHTIME:-1s}" | tee go_bench.txt
echo "== PyTorch twin"
python3 torch_twin.py --go go_bench.txt | tee table.md
if [ -n "${OUT:-}" ]; then
	cp parity_cuda.txt parity_engine.txt go_bench.txt table.md "$OUT/"
fi
