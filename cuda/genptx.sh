#!/bin/sh
# genptx.sh [dir]: compile every kernel file to PTX for compute_80 (A100)
# and compute_90 (H100/H200) into dir (default ptx/). go generate runs it;
# CI runs it into a temporary folder and compares with the committed files.
set -eu
cd "$(dirname "$0")"
out=${1:-ptx}
mkdir -p "$out"
for arch in 80 90; do
	for f in *.cu; do
		nvcc -ptx -std=c++14 -arch=compute_$arch -o "$out/${f%.cu}.compute_$arch.ptx" "$f"
	done
done
