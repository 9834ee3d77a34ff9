#!/bin/sh
# run.sh: on the GPU machine, in the folder build.sh made. Runs the parity
# tests (cuda and engine), then the Go benchmarks, then the PyTorch twin at
# the same shapes, and prints the side-by-side table (also in table.md).
# About 3 minutes on an H200; set BENCHTIME (default 1s) to trade accuracy
# for time.
set -eu
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "== parity tests"
./cuda.test -test.run . -test.count 1 2>&1 | tail -20
./engine.test -test.run 'Device|OnCUDA' -test.count 1 2>&1 | tail -5
echo "== Go benchmarks"
./cuda.test -test.run '^$' -test.bench . -test.benchtime "${BENCHTIME:-1s}" | tee go_bench.txt
echo "== PyTorch twin"
python3 torch_twin.py --go go_bench.txt | tee table.md
