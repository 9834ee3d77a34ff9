// Package cuda holds arew's CUDA kernels (*.cu), their PTX (ptx/, made by
// genptx.sh through go generate and committed) and Go bindings through
// gorgonia.org/cu. Every file but this one has //go:build gpu: cu's package
// init calls cuInit and exits the process on a machine without a GPU, so a
// default build never links it, and a gpu-tagged binary runs only on a GPU
// machine. This file is untagged so that `go generate ./cuda` and `go doc`
// work in a default build; it imports nothing.
//
// The CPU kernels of package kernels are the reference for everything here:
// the same layouts (row-major logits; kernels.Packed and kernels.Steps for
// trajectories), the same formulas and the same rules for NaN and ±Inf, and
// the host-slice entry points (Device.TokenLogProb, TokenLogProbBackward,
// MarginCorrection, GAE, GroupBaseline) return the same errors for the same
// bad inputs, before anything is copied. The On entry points (TokenLogProbOn
// and the rest) work on device buffers and check sizes, not contents; the
// trajectory layouts reach the device only through UploadPacked and
// UploadSteps, which validate them.
//
// Each kernel file has numbered versions, plain to fast, as llm.c's dev/cuda:
//
// # Token log-prob (token_logprob_forward.cu, token_logprob_backward.cu)
//
// Forward, per row i of z (n, v): lse = log Σ_j e^z, logp = z_y − lse, and
// optionally H = −Σ p log p. Version 1 is one thread per row, two passes in
// double. Version 2 is one block per row reading the row once in float4s:
// each thread keeps an online state (m, s, t) = (max so far, Σ e^(z−m),
// Σ e^(z−m)(z−m)); when its max grows from m to m', it rescales s by
// e^(m−m') and t by the same factor after adding (m−m')·s, because each
// term's shift moves by m − m'. Threads, then warps, merge states the same
// way, and the last lane finishes in double: lse = m + log s, H = log s − t/s
// (as −Σ p log p = −Σ p (z − m − log s)). A row that does not start on a
// 16-byte boundary (v not a multiple of 4) is read as a scalar head, float4
// body and scalar tail.
//
// Backward: dz = g·(1[j=y] − p) − h·p·(log p + H), with p = e^(z − lse)
// recomputed from the saved lse, i.e. dz = e^lp·(a + b·lp) + g·1[j=y] with
// lp = z − lse, a = −(g + h·H), b = −h: one pass reading z and writing (or
// adding to) dz, and dz may be z's own buffer (in place, llm.c's fused
// classifier). Version 1: one thread per row in double; version 2: one block
// per row in float4s.
//
// # AREW margin (margin.cu), GAE (gae.cu), group baseline (group_baseline.cu)
//
// The margin correction writes or adds λ·u per token, u = +w+ on the agent
// tokens of positive steps and −w− on negative ones, in the four modes of
// kernels.MarginMode (kernels/doc_advantage.go gives the weights, optim/doc.go
// "AREW" why they are the margin's gradient).
// Version 1 is one thread per trajectory; version 2 one block per trajectory
// with a warp per step, counting agent tokens with coalesced byte loads;
// version 3 one warp per trajectory, a lane per step for the counts, then
// the tokens in order, each finding its step in a shared-memory table of
// the steps by binary search. No block-wide barrier, and a trajectory's
// 32 tokens at a time are read and written together.
//
// GAE runs A_t = δ_t + γλ·A' backwards over the agent tokens, skipping
// observation tokens. Version 1 is one thread per trajectory. Version 2 is
// one warp per trajectory: the recursion is the affine map X_t = d_t + c_t·X
// (d = δ, c = γλ on agent tokens; d = 0, c = 1 on observation tokens, which
// pass X through), affine maps compose associatively, so 32 tokens at a time
// are scanned in five shuffle steps; the next agent token's value comes from
// a ballot of the agent lanes.
//
// The group baseline's version 1 is one thread per trajectory that finds
// its group's members in index order (the reference's sums, in double);
// version 2 is one warp per trajectory, each lane taking every 32nd entry and
// the warp adding the lanes' sums (deterministic, but not the reference's
// order: within the tolerance, not bitwise). Then one block per trajectory
// broadcasts A_b to its agent tokens.
//
// # Tests and benchmarks (go test -tags gpu, on a GPU machine only)
//
// TestTokenLogProbMatchesRef, TestTokenLogProbBackwardMatchesRef,
// TestTokenLogProbBackwardInPlace, TestMarginCorrectionMatchesRef,
// TestGAEMatchesRef and TestGroupBaselineMatchesRef check every version
// against the CPU reference, |gpu − ref| ≤ 1e-5 + 1e-5·|ref| in float32, on
// random inputs, logits of ±1e4, v not a multiple of 4 (1003, 7, 1), one row,
// empty inputs, the special rows, and random packed batches (empty
// trajectories, steps without agent tokens, one-sided trajectories,
// trajectories longer than a warp's 32 tokens). The benchmarks report GB/s
// and copy_frac, the fraction of the copy kernel's bandwidth (bench.cu)
// measured in the same process. bench/gpu holds the scripts that build the
// test binary on a machine with the toolkit and run it, with a PyTorch twin,
// on the GPU machine.
//
// # Targets, and where they are measured
//
// The targets: the token log-prob forward + backward at 32768 × 32768 at
// ≥ 80% of the copy bandwidth and ≥ 2 × PyTorch; the margin correction
// on 4096 trajectories of 256 tokens at ≥ 50% of the copy bandwidth and
// ≥ 5 × the same computation in torch ops. The H200 measurements (every
// parity test and compute-sanitizer's four checkers pass; each version's
// milliseconds and copy_frac against PyTorch, and which targets are met)
// are in docs/bench.md, with the files and the commands that remake them
// in docs/results/gpu-h200.
package cuda

//go:generate sh genptx.sh
