package engine

// # The transformer's custom ops: LayerNorm, GELU, causal self-attention
//
// Stock gorgonia gets these wrong or slow (InverseSqrt's gradient is wrong,
// so a LayerNorm built from it is 20–55% off; last-axis SoftMax seeds every
// row's max with one element of the whole tensor and NaNs when a row exceeds
// it by ~88, and starts a goroutine per row; there is no causal mask). So
// each is one differentiable node (layernorm_op.go, gelu_op.go,
// attention_op.go) whose forward and backward are kernels in package
// kernels, a reference loop beside a fast path:
//
//	LayerNorm(x (N,C), gain (C), bias (C), eps)      → (N,C)
//	GELU(x (any shape))                               → same shape
//	CausalSelfAttention(qkv (B·T, 3C), B, T, heads)  → (B·T, C)
//
// How forward state reaches the backward, and why op-owned buffers are
// sound for a graph run by one TapeMachine, is explained in op_common.go.
// Below, each backward is derived; the tests named are the proofs.
//
// # LayerNorm
//
// Per row (dropping the row index), with μ = (1/C)·Σ_k x_k, σ² = (1/C)·Σ_k
// (x_k − μ)² (biased, as nn.LayerNorm), r = (σ² + ε)^(−½):
//
//	x̂_j = (x_j − μ)·r,   y_j = γ_j·x̂_j + β_j
//
// With dy the upstream gradient, dβ_j = Σ_rows dy_j and dγ_j = Σ_rows
// dy_j·x̂_j directly. For dx let g_j = dy_j·γ_j (the gradient reaching x̂).
// ∂μ/∂x_k = 1/C; ∂σ²/∂x_k = (2/C)·(x_k − μ) (the term through μ vanishes
// because Σ_j (x_j − μ) = 0); so ∂r/∂x_k = −½·r³·∂σ²/∂x_k = −r³·(x_k − μ)/C
// and
//
//	∂x̂_j/∂x_k = r·(δ_jk − 1/C) − (x_j − μ)·r³·(x_k − μ)/C
//	          = (r/C)·(C·δ_jk − 1 − x̂_j·x̂_k)
//
// Summing against g:
//
//	dx_k = Σ_j g_j·∂x̂_j/∂x_k = r·(g_k − mean_j(g_j) − x̂_k·mean_j(g_j·x̂_j))
//
// which is kernels.LayerNormBackwardRef. μ and σ² are computed in float64
// and in two passes, and μ and r are kept in float64 for the backward: with
// a common offset of 1e4 the one-pass float32 E[x²] − E[x]² loses every
// digit. Proofs: kernels.TestLayerNormHandComputed (the formula on a row
// worked by hand), TestLayerNormOpGradCheck (finite differences, all three
// inputs), kernels.TestLayerNormLargeOffsetIsStable (LN(1e4 + u) = LN(u)),
// kernels.TestLayerNormFastMatchesRef.
//
// # GELU (tanh approximation)
//
//	gelu(x) = ½·x·(1 + tanh u),   u = k·(x + a·x³),   k = √(2/π), a = 0.044715
//
// Differentiating the product and tanh' = 1 − tanh²:
//
//	gelu'(x) = ½·(1 + tanh u) + ½·x·(1 − tanh² u)·k·(1 + 3a·x²)
//
// Since tanh u = 2σ(2u) − 1, ½·(1 + tanh u) = σ(2u) =: s and ½·(1 − tanh² u)
// = 2·s·(1 − s), so the fast path computes gelu = x·s and gelu' = s +
// x·s·(1 − s)·2k·(1 + 3a·x²) with one exp instead of a tanh. For large |x|,
// s is exactly 0 or 1 and s·(1 − s) exactly 0, so x³ never meets an
// infinity: gelu(±1e4) = (1e4, 0) with derivative (1, 0), no NaN. At ±Inf
// the limits are used (gelu(+Inf) = +Inf, gelu(−Inf) = 0, derivatives 1 and
// 0; PyTorch gives NaN there); NaN stays NaN. Proofs:
// kernels.TestGELUMatchesPyTorch (values and derivatives from PyTorch 1.13),
// kernels.TestGELUDerivativeMatchesFiniteDifference,
// kernels.TestGELULimitsAndNaN, TestGELUOpGradCheck.
//
// # Causal self-attention
//
// For one sequence and head (hd = C/heads), with the row max subtracted
// (softmax is invariant to a per-row shift, and then every exponent is ≤ 0
// and the largest term is exactly 1, so nothing overflows and the
// normaliser is ≥ 1):
//
//	a_ts = q_t·k_s/√hd,   P_ts = exp(a_ts)/Σ_{u≤t} exp(a_tu),   out_t = Σ_{s≤t} P_ts·v_s
//
// only for s ≤ t (P_ts = 0 for s > t is never stored or computed). Backward,
// with dout the upstream gradient:
//
//	dv_s  = Σ_{t≥s} P_ts·dout_t
//	dP_ts = dout_t·v_s
//
// Softmax: ∂P_ts/∂a_tu = P_ts·(δ_su − P_tu), so
//
//	dA_tu = Σ_s dP_ts·P_ts·(δ_su − P_tu) = P_tu·(dP_tu − Σ_s P_ts·dP_ts)
//
// and through a_ts = q_t·k_s/√hd:
//
//	dq_t = Σ_{s≤t} dA_ts·k_s/√hd,   dk_s = Σ_{t≥s} dA_ts·q_t/√hd
//
// which is kernels.AttentionBackwardRef; dq, dk, dv land in dqkv at q's,
// k's and v's columns. Padding: the batch is right-padded, so a real token
// at t attends only to s ≤ t, all real, so padding after it cannot change
// its output. The padded positions' own outputs are meaningless and the
// caller must mask them out of the loss; then their dout is zero (they feed
// only later, also padded, positions), their P and dA terms add nothing to
// the real positions' dk and dv, and no gradient flows from padding. Proofs: kernels.TestAttentionHandComputed (T = 2 worked by hand
// in its comment), TestCausalSelfAttentionOpGradCheck (finite differences),
// kernels.TestAttentionIsCausal (changing position t leaves every output
// before t bitwise unchanged), kernels.TestAttentionLargeScores (scores of
// ±1e4 give a clean one-hot softmax), kernels.TestAttentionFastMatchesRef,
// and TestTransformerBlockGradCheck (a whole pre-LN block of the three ops
// and stock matmuls, checked by finite differences).
//
// # Embedding
//
// The input layer, x[b·T + t] = wte[ids[b·T + t]] + wpe[t], is one node
// (embedding_op.go) because gorgonia's ByIndices puts the gradient of a 1-D
// gather in the wrong places. Its backward is a scatter-add: row v of dwte
// sums dx over the positions whose id is v, row t of dwpe sums dx over the
// batch. Proofs: TestEmbeddingOpGradCheck, TestEmbeddingOpHandValuesAndRerun.
//
// # Row and CopyReshape
//
// Two shape ops that stand in for gorgonia's where a graph runs every
// minibatch: Row(x, k) is row k of an (R,N) node as an (N) node (the fused
// log-prob/entropy node's two rows), CopyReshape(x, to) is x in another
// shape (the value head's (B·T,1) as (B·T)). Both copy into a buffer they
// keep, where gorgonia's slice and reshape make new tensors on every run.
// The values are the stock ops' bit for bit: a copy forward; backward,
// Row adds the upstream gradient into a zeroed (R,N) buffer as gorgonia's
// slice gradient does (so −0 arrives as +0, 0 + (−0) being +0) and
// CopyReshape copies it back into x's shape. Proofs:
// TestRowMatchesSliceAndReshape, TestCopyReshapeMatchesReshape (bitwise
// against the stock ops, −0, ±Inf and NaN upstream included).
//
// # Precision and determinism
//
// Data are float32. LayerNorm's statistics and every reduction of the
// reference kernels are float64; the fast attention's products and
// exponentials are float32 (FMA where AVX2 is used), its softmax normaliser
// float64; the fast GELU rounds its exp argument to float32, which costs up
// to 2e-6 relative against the float64 reference. All
// fast kernels split work by rows, columns or (b, h) pairs whose results are
// each summed in a fixed order, so outputs are bitwise the same for any
// goroutine count (the Deterministic… tests); the AVX2 and portable Go
// products differ from each other by float32 rounding only.
