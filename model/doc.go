// Package model is arew's transformer policy: a GPT-2-style decoder (token
// and learned position embeddings, pre-LN blocks of causal multi-head
// self-attention and a GELU MLP, a final LayerNorm, an untied LM head) with
// an optional value head, defined twice over the same weight memory: as a
// gorgonia graph for training (Graph), and as a lean KV-cache forward in
// plain Go for rollouts (Decoder).
//
// # Architecture
//
// For a batch of B sequences of T tokens (rows i = b·T + t), C = DModel,
// H = Heads, hd = C/H, M = MLP, V = Vocab, P = Context ≥ T, L = Layers:
//
//	x = wte[tokens] + wpe[t]                          x is (B·T, C)
//	for each block l < L:
//	    h   = LN(x; ln_1)                             (B·T, C)
//	    qkv = h·c_attn.weight + c_attn.bias           (B·T, 3C), row [q | k | v]
//	    a   = CausalSelfAttention(qkv)                (B·T, C)
//	    x   = x + a·attn.c_proj.weight + attn.c_proj.bias
//	    h   = LN(x; ln_2)
//	    f   = GELU(h·mlp.c_fc.weight + mlp.c_fc.bias) (B·T, M)
//	    x   = x + f·mlp.c_proj.weight + mlp.c_proj.bias
//	x = LN(x; ln_f)
//	logits = x·lm_head.weight                         (B·T, V), no bias
//	values = x·value_head.weight + value_head.bias    (B·T, 1) → (B·T)
//
// LN(x; n) = (x − mean)/√(var + 1e-5)·n.weight + n.bias over each row (var
// biased, as nn.LayerNorm). GELU is the tanh approximation
// (nn.GELU(approximate="tanh")). Attention, per sequence and head h with q,
// k, v the columns [h·hd, (h+1)·hd) of each part: out_t = Σ_{s≤t}
// softmax_s(q_t·k_s/√hd)·v_s — head h's output lands in the same columns
// of a. A policy has the LM head (and, with `--critic shared`, also the
// value head: Config.WithValueHead); a separate critic (`--critic
// separate`, as verl) is a second Model of the same trunk with the value
// head only (Config.Critic).
//
// # Parameters: names and layouts
//
// Every matrix is stored (in, out), as Hugging Face's GPT-2 Conv1D does, so
// a layer is y = x·W + b; all tensors are float32, row-major.
//
//	name                     shape       role
//	wte                      (V, C)      token embedding
//	wpe                      (P, C)      position embedding
//	h.{l}.ln_1.weight/bias   (C)         LayerNorm before attention
//	h.{l}.attn.c_attn.weight (C, 3C)     columns [0,C): q, [C,2C): k, [2C,3C): v
//	h.{l}.attn.c_attn.bias   (3C)
//	h.{l}.attn.c_proj.weight (C, C)      attention output projection
//	h.{l}.attn.c_proj.bias   (C)
//	h.{l}.ln_2.weight/bias   (C)         LayerNorm before the MLP
//	h.{l}.mlp.c_fc.weight    (C, M)
//	h.{l}.mlp.c_fc.bias      (M)
//	h.{l}.mlp.c_proj.weight  (M, C)
//	h.{l}.mlp.c_proj.bias    (C)
//	ln_f.weight/bias         (C)         final LayerNorm
//	lm_head.weight           (C, V)      LM head (untied from wte), if LMHead
//	value_head.weight        (C, 1)      value head, if ValueHead
//	value_head.bias          (1)
//
// Initialisation (NewParams, GPT-2): matrices N(0, 0.02²), the two residual
// projections (attn.c_proj, mlp.c_proj) N(0, (0.02/√(2L))²), wpe N(0,
// 0.01²), biases 0, LayerNorm gains 1; each tensor from its own stream of the
// run seed (engine.ParamStore.Init). The PyTorch twin, bench/torch/model.py
// (about 80 lines), is this table and the formulas above as an nn.Module; it
// loads a Go checkpoint as is.
//
// # One weight memory, two forwards
//
// Model.Params (engine.ParamStore) holds the only copy of the weights. A
// Graph binds each parameter as a gorgonia node whose value is the
// parameter's own tensor (no copy); the Decoder reads Param.Data() on every
// call; optim.AdamW updates the same slices in place. So an optimiser step
// is seen by the next graph run and the next decode without any copying,
// and a KV cache filled before the step is stale: Reset the decoder's
// slots after every update. Neither may run while the optimiser steps.
//
// # The training graph
//
// NewGraph(B, T) builds the network for fixed shapes, once; each update
// refills the int32 input tensors (SetInputs: tokens, and targets = the
// next tokens) and reruns it. Shorter sequences are right-padded: attention
// is causal, so a real position never sees the padding after it, and the
// caller's loss masks the padded positions out, so no gradient flows from
// them (TestPaddingDoesNotLeak). Outputs: Logits, Logp = log
// softmax(Logits)[target] and Entropy (one fused engine.TokenLogProbEntropy
// node), Values. The caller builds a scalar loss on them (optim's
// PPOClipNode, ValueLossNode, …) and calls Compile(loss): gradients
// w.r.t. every parameter the loss reaches, one TapeMachine. Run is forward
// + backward; AccumulateGrads adds the gradients into Param.Grad. Forward
// is a second machine over the outputs only (no loss, no backward): old
// log-probs and values.
//
// Nodes: Embedding, LayerNorm, CausalSelfAttention, GELU and
// TokenLogProbEntropy are engine's custom ops; the linear layers are the
// engine's matrix product (engine.MatMul, bitwise gorgonia's Mul without
// its per-run allocations) plus a fused bias op (engine.AddBias; stock
// broadcasting materialises an (N, D) copy of the bias per layer per run,
// ~8 MB more allocation at D = 512, BenchmarkLinearBias); residuals are
// stock Add, which engine.Machine runs into its output of the last run. A
// final no-op reader of every output and gradient (engine.KeepAlive) stops
// gorgonia from reusing an output's memory in place for a later op of the
// loss, so the outputs read after Run are this run's (TestRunAndForwardAgree).
//
// # The prefix graph
//
// NewPrefixGraph(PrefixShape) is the training graph for groups of answers
// that share a prompt (GRPO's G samples of one prompt): the trunk's rows
// are each group's prompt once, then every answer as a block of rows at
// its own positions (an embedding op at explicit positions), whose
// attention sees its group's prompt and, causally, its own block; the
// prompts attend among themselves through the plain graph's kernel. The
// heads read the answer rows only, laid out as a plain graph's Batch =
// groups·answers sequences of SeqLen = the block length, so a loss built
// on a plain graph's outputs builds on it unchanged. It computes the plain
// graph's values and gradients at those rows to float32 rounding
// (TestPrefixGraphMatchesPlainGraph: within 6·10⁻⁷ on gradients of size
// up to 5), with the prompt's rows computed once instead of once per
// answer.
//
// # The head-rows graph
//
// A PPO or GRPO loss reads the heads at the agent's predictions only
// (about a quarter of FloDial's rows), yet the plain graph computes every
// row to the heads. Row i's output depends on the rows before it only
// through attention, whose keys and values come from the previous block's
// rows; the last block's other work (its query, attention output,
// projection, LN2, MLP, then the final LN and the heads) is row by row.
// So NewHeadRowsGraph(B, T, R) runs the earlier blocks and the last
// block's LN1 and QKV product at every row (the keys and values any listed
// row may attend to), and everything after them at the rows listed by
// SetHeadRows only: gathered into R rows, each listed query attending
// causally over its own sequence's keys (rowsAttention, head_rows_attention.go),
// the outputs scattered back to the (B·T) layout with 0 elsewhere.
// Earlier blocks cannot be cut so: every row of block l < L−1 feeds the
// keys and values of block l+1. At FloDial's shape (small preset, 27% of
// rows listed) this removes about 30% of the multiply-adds of a forward +
// backward (counted from the shapes: per unlisted row, the last block's
// attention, projection and MLP and the LM head, of two blocks and a
// head) and measured 24–30% of its time (BenchmarkHeadRowsGraph,
// docs/bench.md).
//
// It is not bitwise the plain graph: the weight gradients of the last
// block and heads are sums over R rows instead of B·T, in another blocking
// of the matrix products, the gradient of the QKV product gets zero query
// rows in another order, and the attention's products run per sequence
// over its listed rows. The loss, the outputs at the listed rows and
// every gradient agree to float32 rounding
// (TestHeadRowsGraphMatchesPlainGraph: within 1.5·10⁻⁵ on gradients of
// size up to 130), so it is an opt-in: a run that uses it is a different
// run from one that does not.
//
// # The rollout forward
//
// Decoder holds MaxSeqs slots, each a sequence with its own position and a
// cache of its keys and values per layer, each head's keys stored
// transposed (head size × context) and its values row by row, so that the
// scores and the weighted sum are two contiguous products
// (kernels.CachedAttention, the same products and float32 exp as the
// training graph's attention kernel). Append feeds
// any set of distinct slots any number of new tokens (a prompt prefill, one
// sampled token each, an environment reply) as one batch: the rows of all
// slots go through each matmul together; each row's keys and values are
// cached before attention, then row (slot s, position t) attends to s's
// cached positions 0..t. It returns the logits after each slot's last new
// token (and Values, the value head's output there, when the model has
// one: a shared or separate critic can score rollouts on the fly); passing
// Context is an error that changes nothing. Only those last rows reach the
// heads, and a block's other rows feed only the next block, so the last
// block caches every row's keys and values and then computes its query,
// attention, projection and MLP on each slot's last row only: a 111-token
// prompt prefill runs one row, not 111, through them. Every op from there
// is row by row, so the logits are bitwise those of carrying every row
// (TestDecoderLastRowsBitwise). The matmuls go
// through matMul (matmul.go), one plain loop meant to be swapped for
// kernels.MatMul.
//
// Sampler draws a token with temperature, optional top-k, or greedily, from
// a seeded *rand.Rand, and returns LogProb = log π(token) at temperature 1
// over all V tokens — exactly the training graph's Logp, i.e. what the PPO
// ratio needs as the old log-prob — and SampleLogProb, the log-probability
// under the distribution actually sampled (they differ only when the
// temperature is not 1 or top-k truncates).
//
// # Checkpoints
//
// Model.Save writes a safetensors file (engine.SaveSafetensors, atomic: temp
// file, fsync, rename): one F32 tensor per parameter under the names and
// shapes of the table above, in parameter order, and the metadata
//
//	"format":       "arew.model/1"
//	"model_config": the Config as JSON, e.g. {"vocab":60,"context":256,
//	                "d_model":64,"layers":2,"heads":4,"mlp":256,
//	                "init_std":0.02,"lm_head":true,"value_head":false}
//
// plus the caller's own string pairs. Load rebuilds the model from that
// config and requires the tensors to be exactly its parameters (every name,
// F32, every shape), listing every difference otherwise; LoadWeights loads
// into an existing model of the same config. In PyTorch: read the JSON
// header, torch.frombuffer each tensor, and model.py's GPT computes the
// same logits (TestMatchesPyTorchTwin proves it on committed fixtures).
//
// # Proofs
//
//   - TestWholeModelGradCheck: the gradient of a masked −logp + value loss
//     w.r.t. 6 random elements of every parameter tensor of the tiny model
//     (policy with shared value head, policy, separate critic), against
//     central differences; engine.TestEmbeddingOpGradCheck for the new op.
//   - TestMatchesPyTorchTwin: logits and values within 1e-4 of PyTorch
//     1.13 (measured ~2e-6), the loss, every gradient within 1e-4 +
//     1e-3·|ref|, and the losses of 10 AdamW steps within 1e-4 (~2e-6).
//   - TestDecoderMatchesGraph: KV-cache logits within 1e-4 of the graph's
//     (measured ~3e-6) for three sequences at different positions over 48
//     cached steps, after a mixed prefill.
//   - TestDecoderLastRowsBitwise: the last block on the last rows only gives
//     bitwise the logits and values of the block on every row (small
//     preset, 16 slots, random calls of 1 to 40 tokens per slot).
//   - TestHeadRowsGraphMatchesPlainGraph: the head-rows graph's loss,
//     outputs at the listed rows and every gradient within float32
//     rounding of the plain graph's (the larger of 1e-5 and 1e-4·the
//     tensor's largest gradient),
//     its unlisted rows 0, for row lists from none to every row, masked
//     and not; TestRowsAttentionMatchesRef for its attention's fast path.
//   - TestCheckpointRoundTrip (bitwise-equal logits after reload),
//     TestCheckpointErrors (truncated, wrong dtype or shape, missing tensor,
//     config mismatch).
//   - TestTrainsReverseTask: 200 AdamW steps reverse 4 digits (loss → ~0)
//     and greedy KV-cache decoding then writes every reversal.
//
// # Precision
//
// float32 throughout; LayerNorm statistics, the bias gradient's column sums
// and the attention softmax's normaliser are float64, the Sampler works in
// float64. The graph's attention kernel and the decoder sum their dot
// products in different orders, so the two paths agree to float32 rounding
// (a few 1e-6 on logits of size ~5), not bitwise.
package model
