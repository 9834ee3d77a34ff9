// Package engine is arew's tensor engine: the glue to gorgonia (a parameter
// store whose memory the graph, the rollout forward and the optimiser share),
// custom differentiable ops backed by package kernels, and checkpoints.
//
// # Fused token log-prob (TokenLogProb, TokenLogProbEntropy)
//
// For logits z (N,V) and targets y (N), row i of the policy's distribution is
// p[i,j] = exp(z[i,j] − lse[i]) with lse[i] = log Σ_j exp(z[i,j]). The op
// returns
//
//	logp[i] = z[i,y[i]] − lse[i]
//	H[i]    = −Σ_j p[i,j]·log p[i,j]          (TokenLogProbEntropy only)
//
// lse is computed stably: the row's own maximum m is subtracted before exp,
// lse = m + log Σ_j exp(z[i,j] − m), accumulated in float64 by the reference
// kernel. (gorgonia's LogSoftMax seeds every row's maximum with element 0 of
// the whole tensor, so rows lying ~88 above or far below it give ±Inf or NaN;
// TestLargeLogitsBreakCompositeNotFused pins it.)
//
// Backward. With upstream gradients g = ∂L/∂logp and h = ∂L/∂H, and
// ∂p[i,k]/∂z[i,j] = p[i,k]·(1[k=j] − p[i,j]):
//
//	∂logp[i]/∂z[i,j] = 1[j=y[i]] − p[i,j]
//	∂H[i]/∂z[i,j]    = −Σ_k (log p[i,k] + 1)·p[i,k]·(1[k=j] − p[i,j])
//	                 = −p[i,j]·(log p[i,j] + H[i])
//
// so one sweep over each row writes
//
//	dz[i,j] = g[i]·(1[j=y[i]] − p[i,j]) − h[i]·p[i,j]·(log p[i,j] + H[i]).
//
// Why one pass: the backward needs only p, which it recomputes from z and the
// forward's saved lse (one exp per element); nothing of size N×V is stored
// between forward and backward, and both outputs' gradients are formed in the
// same sweep, so the graph never holds the probability matrix at all. The
// composite LogSoftMax + gather graph stores the (N,V) log-softmax, then
// allocates an (N,V) gather gradient and an (N,V) softmax gradient per step.
// When H is requested but unused its gradient h is all zero and the entropy
// term is skipped.
//
// The forward's lse and H reach the backward through state the op owns, not
// through the graph (see tokenLogProbState): a gorgonia graph is run by one
// TapeMachine at a time, the backward node takes the forward node as an input
// so it always runs after it, and every run rewrites the state, so a rerun of
// the graph on new logits is fresh (TestTokenLogProbOpSecondRunIsFresh). The
// op's outputs are also reused across runs: after the first run its Do
// allocates nothing (TestTokenLogProbOpDoReusesBuffers).
//
// Proofs: TestTokenLogProbOpGradCheck (finite differences of
// Σ a·logp + Σ b·H), TestTokenLogProbOpMatchesComposite (logp, H and dL/dz
// equal to gorgonia's LogSoftMax + gather within 1e-5 on moderate logits),
// TestCompositeGatherForms (the composite's gather must be the 2-D ByIndices
// on the (N·V,1) reshape with indices i·V + y[i]; the 1-D gather's gradient
// is wrong).
//
// # Device (SetDevice, device.go)
//
// The fused token log-prob ops run on the engine's device, chosen by
// SetDevice before the graph is built (each op keeps the device it was built
// for; its String names a device other than the CPU, so ops on different
// devices never merge). CPU, the default, runs package kernels. CUDA runs
// package cuda's kernels on GPU 0, copying the logits in and the results out
// on every run, since gorgonia's values live in host memory. Only a binary
// built with -tags gpu links package cuda (device_gpu.go; cu exits the
// process at start on a machine without a GPU); in a default build
// SetDevice(CUDA) returns an error naming the tag and leaves the device
// alone (TestSetDeviceCUDANeedsTheGPUTag). On a GPU machine
// TestTokenLogProbOpOnCUDAMatchesCPU checks the two devices agree.
//
// # Checkpoints (safetensors)
//
// A checkpoint is a Hugging Face safetensors file:
//
//	bytes [0,8)       N, the header length, uint64 little-endian
//	bytes [8,8+N)     a UTF-8 JSON object:
//	                  {"__metadata__": {"key": "value", …},          (optional)
//	                   "name": {"dtype": "F32", "shape": [d0, d1, …],
//	                            "data_offsets": [begin, end]}, …}
//	bytes [8+N, EOF)  the data buffer; tensor "name" is bytes [begin, end)
//	                  of it, row-major, little-endian
//
// A tensor's byte length is Π shape × the dtype's size (the empty shape is
// a scalar), and the tensors' ranges tile the data buffer exactly: no holes,
// no overlaps. WriteSafetensors writes F32, I32 and I64 tensors in the order
// given, header keys in the same order after "__metadata__", and pads the
// header with spaces so the data starts at a multiple of 8 bytes, as the
// reference writer does (TestSafetensorsByteExactLayout spells out every
// byte; TestSafetensorsReadsPythonWrittenFile reads a file written by an
// independent Python writer, testdata/gen_safetensors.py).
//
// ReadSafetensors treats the file as hostile: the header length is checked
// against the file and a 100 MB cap before anything is allocated, the JSON
// must be valid UTF-8 with no duplicate names, every dimension non-negative
// and the element count bounded, every range inside the data and equal to its
// shape's size, and the ranges must tile the buffer; so allocations never
// exceed the file's own size (TestSafetensorsRejectsHostileFiles,
// TestSafetensorsTruncated, FuzzLoadSafetensors).
//
// SaveSafetensors and SaveParams write atomically (temp file in the same
// directory, fsync, rename, fsync of the directory): a crash leaves the old
// file or the new one, never a part (TestSaveIsAtomic). LoadParams requires
// the file's names, shapes and dtype (F32) to match the store exactly, and
// changes nothing otherwise.
//
// # Running a compiled graph (Machine)
//
// A training graph is compiled once and run for every minibatch. gorgonia's
// tape machine empties its registers on Reset, so each run allocated every
// matmul output again (about 400 MB per PPO update of the small preset).
// Machine puts each alloc instruction's tensor of the last run back into its
// register before the next run, zeroed unless the op is a matrix product
// (which overwrites all of it), so a run sees exactly what a fresh machine
// would give it except for the addresses. It reads the tape machine's state
// by reflection and falls back to Reset if that state is not laid out as
// in gorgonia v0.9.18. It also keeps the outputs of gorgonia's
// elementwise +, −, ⊙, ÷ of two tensors that would otherwise clone an
// input on every run (residual adds, the gradient sums of autodiff): each
// such instruction writes, through the op's own preallocated path, into
// its tensor of the last run (machine_prealloc.go). Proof:
// TestMachineReuseMatchesFreshRuns (loss and gradients bitwise those of a
// fresh machine, run after run, with the weights changing between runs).
//
// The tape machine also spends about three allocations on every
// instruction whatever its op does (a fresh slice of inputs, a result
// variable a closure captures, boxed log arguments a default build never
// prints) and starts a goroutine per run: ~8,000 allocations of a PPO
// update. So Machine reads the compiled program once into plain steps and
// runs them itself (machine_exec.go), doing per instruction what the tape
// machine's CPU path does (the same op path: preallocated, in place or
// plain; the same engine on the result; the same register and node
// binding), with each op's input slice kept; a program with anything else
// in it (reads into Go values, device transfers, batched BLAS, logging)
// stays on RunAll. Proof: TestMachineReuseMatchesFreshRuns, and for the
// whole model's training graph model's TestGraphRunMatchesTapeMachine.
// Where gorgonia writes an elementwise +, −, ⊙ or ÷ of two float32 tensors
// into a tensor it already holds, the tensor package's dispatch allocates
// on every call before it runs its loop out[i] = a[i] ∘ b[i]; the machine
// runs that loop itself for plain operands of one shape
// (machine_arith.go; TestDirectArithMatchesGorgonia: bitwise, NaN, ±Inf
// and subnormals included). The model's own shape changes are the
// engine's Row and CopyReshape, which keep their outputs (doc_ops.go), not
// gorgonia's slice and reshape, which make new tensors every run.
//
// The model's matrix products are the engine's MatMul op rather than
// gorgonia's Mul: the same kernels.Sgemm calls (TestMatMulMatchesGorgoniaBitwise),
// without the dozen allocations gorgonia's generic tensor product makes
// per call.
package engine
