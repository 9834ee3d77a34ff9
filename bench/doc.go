// Package bench holds measurements that are not unit tests: this machine's
// compute peak (peak_test.go) and memory bandwidth (stream_test.go), and
// side-by-side scripts:
// torch_logprob.py (PyTorch's log_softmax + gather, forward + backward, at
// the sizes of kernels.BenchmarkTokenLogProb) and compare_logprob.py, which
// runs the Go benchmarks and the PyTorch script in alternation and prints
// the medians as one table; torch_step.py (the training step of
// model.BenchmarkTrainStep), torch_decode.py (KV-cache decoding as in
// model.BenchmarkDecode) and compare_step.py, which runs those two beside
// the Go benchmarks and BenchmarkPeakFMA, interleaved, and prints Go's and
// PyTorch's times, their ratio and the Go step's fraction of the FMA peak;
// interleave.py, which runs any benchmark commands in alternation and
// compares them by each process's CPU time, steadier than wall time on a
// shared machine.
// bench/gpu holds the GPU counterpart: build.sh
// compiles package cuda's test binary (-tags gpu) on a machine with the
// CUDA toolkit; run.sh, on the GPU machine, runs its parity tests and
// benchmarks (GB/s and copy_frac, the fraction of a copy kernel's bandwidth
// measured in the same run) and torch_twin.py, PyTorch's log_softmax +
// gather and the margin as torch ops at the same shapes, into one table.
//
// # Reading a kernel's MB/s
//
// A kernel benchmark calls b.SetBytes with the bytes the kernel must move
// at least: every input read once, every output written once (for
// BenchmarkTokenLogProb, 12·N·V + 24·N for a forward plus a backward; its
// comment derives it). go test then prints MB/s = those bytes / time. It is
// not what the hardware moved: a store to memory that is not in cache also
// reads the line first (read-for-ownership), and a second pass over data
// that fell out of cache reads it again.
//
// Divide it by the copy bandwidth of BenchmarkStream measured in the same
// run, at the same thread count (GOMAXPROCS, printed as the -N suffix):
//
//	fraction = kernel MB/s / StreamCopy MB/s
//
// Copy is the cheapest way to move bytes (Go's copy uses non-temporal
// stores for large blocks, so it pays no read-for-ownership), so on
// buffers far larger than the last-level cache a fraction near 1 means the
// kernel is memory-bound: only moving fewer bytes makes it faster. A
// fraction well below 1 on such buffers means time goes to arithmetic
// (exp, here) or to waiting on dependencies, and the code itself can be
// improved. Triad (a = b + s·c, normal stores, in a plain Go loop) is the
// bandwidth of an ordinary streaming loop: reaching it is the realistic
// goal for a kernel that writes with normal stores. Working sets that fit
// in cache (2048×128 floats is 1 MiB) can exceed 1: the data comes from
// L2/L3, not memory.
//
// # Reading a kernel's GFLOP/s
//
// BenchmarkPeakFMA/<avx2|avx512>/threads=<n> runs n goroutines, each locked
// to an OS thread, of a register-only loop of independent fused
// multiply-adds (kernels.FMAPeak: twelve accumulator chains, nothing loaded
// or stored), and reports their total GFLOP/s: each FMA counts as 2 flops
// per lane, 8 lanes for AVX2 and 16 for AVX-512. That is the measured peak,
// the most float32 arithmetic the cores do; it also prints the clock the
// rate implies for two FMA pipes per core (GFLOP/s / (n · 2 · lanes · 2)).
// A compute-bound kernel's fraction of peak is its GFLOP/s (BenchmarkSgemm
// counts 2mnk flops) over the PeakFMA row of the same ISA and thread count:
//
//	fraction = kernel GFLOP/s / PeakFMA GFLOP/s
//
// The machine is shared and noisy. Compare figures from one run, as ratios
// of medians over interleaved repetitions, e.g.
//
//	go test -run '^$' -bench 'Stream|TokenLogProb' -count 5 -benchtime 200ms ./bench/ ./kernels/
//	go test -run '^$' -bench 'PeakFMA|Sgemm/512x512x512/fast$' -count 5 ./bench/ ./kernels/
//	OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench/compare_logprob.py --threads 2 --rounds 5
package bench
