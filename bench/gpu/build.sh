#!/bin/sh
# build.sh [dir]: build the GPU test binaries on a machine with the CUDA
# toolkit (no GPU needed) into dir (default bench/gpu/out), with run.sh and
# torch_twin.py beside them. Copy that folder to the GPU machine (which
# needs no Go toolchain) and run ./run.sh there.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-bench/gpu/out}
mkdir -p "$out"
go test -tags gpu -c -o "$out/" ./cuda/ ./engine/
cp bench/gpu/run.sh bench/gpu/torch_twin.py bench/gpu/gobench.py bench/gpu/summarize.py "$out/"
git rev-parse --short HEAD >"$out/commit.txt" 2>/dev/null || echo unknown >"$out/commit.txt"
echo "built $(ls "$out" | tr '\n' ' ')in $out"
