// Package kernels holds the CPU kernels of arew on plain float32 slices.
// Each kernel comes twice: a readable reference loop (…Ref, float64 where
// it decides correctness) and a fast path beside it (unrolled Go, AVX2/FMA
// Go assembly chosen at start-up from the CPU's features in cpu.go, with
// AVX-512 Sgemm micro-kernels and attention products where the CPU has
// AVX-512F, independent rows split over one pool of persistent helper
// goroutines that parallelFor and Sgemm share, pool.go), tested
// against the reference on random and edge inputs. Where a kernel has both
// an assembly and a Go loop for the same arithmetic (the AVX-512 and AVX2
// Sgemm kernels, GELU, LayerNorm, the bias loops, the attention products
// and softmax rows, AdamWUpdate),
// the two do the same operations in the same order and are tested to agree
// bitwise, so no result depends on which path or goroutine computed it.
// Set AREW_NOASM=1, or build with -tags noasm, to run the portable Go
// paths, AREW_NOAVX512=1 for the AVX2 ones; Impl and CPUFeatures say what
// runs.
//
// On arm64 the kernel set is "neon" (neon_arm64.go): the Sgemm tile, dot,
// axpy and packing, Exp, the attention's softmax row and GELU in NEON Go
// assembly, every other kernel in its Go path. NEON is part of every
// ARMv8-A core, so no CPU feature is checked; AREW_NOASM=1 and -tags noasm
// work as on amd64. The Go compiler fuses x*y + z into one multiply-add on
// arm64, and the NEON code fuses exactly the same steps, so the Sgemm tiles,
// axpy, Exp and GELU are bitwise the Go paths there; the dot product is
// within n·2⁻²⁴·Σ|x·y| of the float64 sum, the softmax row within 1 ulp
// of the Go loop's (its float64 sum in four partial sums). The tests prove
// it under qemu-aarch64 (.ci/run; neon_test.go). FMAPeak is the register-only FMA loop that bench's
// BenchmarkPeakFMA reads the machine's compute peak with. No kernel
// allocates per element, and in the steady state Sgemm, GELU, the bias
// loops and LayerNorm allocate nothing per call (TestPoolCallsDoNotAllocate,
// TestParallelTaskKernelsDoNotAllocate); argument errors (short buffers,
// indices out of range) are returned before any output is written.
//
// # Fused token log-prob (TokenLogProb, TokenLogProbBackward)
//
// logits z is (N,V), targets y is (N). With lse_i = log Σ_j e^{z_ij} and
// p_ij = e^{z_ij − lse_i}:
//
//	logp_i = z_{i,y_i} − lse_i,   H_i = −Σ_j p_ij log p_ij = lse_i − Σ_j p_ij z_ij
//	dz_ij  = g_i·(1[j = y_i] − p_ij) − h_i·p_ij·(log p_ij + H_i)
//
// for upstream gradients g = ∂L/∂logp and h = ∂L/∂H. The forward reads each
// row once: a running max m and a running sum s = Σ e^{z−m}, rescaled by
// e^{m_old − m_new} whenever the max rises (the "online softmax"), so
// lse = m + log s needs no second pass; the entropy rides along as
// t = Σ e^{z−m}(z−m), H = log s − t/s. The backward recomputes p from the
// saved lse (one exp per element) and writes dz in the same sweep, so no N×V
// matrix is ever stored between the two. The exponentials are a vectorised
// float32 exp (exp.go: range reduction e^x = 2^n·e^r and a degree-6
// polynomial, within 1 ulp of math.Exp, TestExpAccuracy). A NaN in a row
// makes that row's outputs NaN; +Inf or an all −Inf row give documented
// values (TestTokenLogProbEdgeRows); out-of-range targets are an error.
// Proofs: TestTokenLogProbMatchesRef, TestTokenLogProbRescale,
// TestTokenLogProbGradCheck, TestTokenLogProbDeterministic.
//
// # Transformer kernels
//
// LayerNorm (layernorm*.go), the tanh-approximated GELU (gelu*.go) and the
// core of causal multi-head self-attention (attention*.go) have their
// forward and backward derivations in engine/doc_ops.go, beside the
// gorgonia ops that call them. CachedAttention is one query's attention
// over a KV cache, the decoder's step, built from the same two products as
// AttentionForward (TestCachedAttentionMatchesRef). Sgemm (sgemm*.go) is a row-major BLAS
// matrix product used by the rollout forward and, through engine's
// FastBLAS, by every gorgonia matmul.
//
// The fast attention runs each (b, h) pair in blocks of 12 query rows on
// the Sgemm micro-kernels (attention_products.go): a block's scores
// q_t·k_s (and, in the backward, dP = dout·Vᵀ) are the kernels' fused
// chains over the head's dimensions, the same sums as the row-by-row
// products, then the row softmax, its gradient and the p-weighted sum of V
// row by row; the backward's dQ = dA·K, dK = dAᵀ·Q and dV = Pᵀ·dout are
// tiles that sum only over the lower triangle's non-zero span. Dropping a
// leading run of +0 terms changes no bit; dropping dQ's trailing +0 terms
// changes none either, except that a sum that underflowed to −0 stays −0.
// Proofs: TestAttentionForwardTiledMatchesRowsBitwise,
// TestAttentionBackwardTiledMatchesRowsBitwise,
// TestAttentionProductsMatchSgemm, beside the tolerance tests against
// AttentionForwardRef and AttentionBackwardRef.
//
// # Optimiser
//
// AdamWUpdate is optim.AdamW's element update (m, v, the bias-corrected
// step and the decoupled decay, in float64 per element), with AVX-512 8
// elements at a time, every operation unfused and in the loop's order, so
// bitwise AdamWUpdateRef (TestAdamWUpdateMatchesRefBitwise).
//
// # Advantage kernels
//
// GAE, the GRPO group baseline and the AREW margin correction on packed
// trajectories: see doc_advantage.go.
package kernels
