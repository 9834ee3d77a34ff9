package model

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/engine"
)

// Graph is the training graph of a model for one fixed (batch B, length T):
// built once, then refilled (SetInputs) and rerun for every update. Shapes
// are fixed, so shorter sequences are right-padded to T and the caller's
// loss masks the padding out (a causal model's real positions never see
// the padding after them).
//
// Outputs, each row i = b·T + t of a sequence-major batch (nil when the
// model has no such head):
//
//	Logits  (B·T, V)  the LM head's logits at every position
//	Logp    (B·T)     log softmax(Logits[i])[targets[i]]  (fused op)
//	Entropy (B·T)     entropy of softmax(Logits[i])
//	Values  (B·T)     the value head's output
//
// A masked graph (NewMaskedGraph) takes Logp and Entropy over Logits +
// LogitBias instead, a (B·T, V) input set by SetLogitBias: the caller's
// mask for constrained decoding (0 for an allowed token, a large negative
// bias for the others), so both are those of the softmax renormalised over
// the allowed tokens. Logits stays the raw head.
//
// A node's value (read with Float32s) is valid until the graph runs again.
// One Graph is run by one goroutine at a time; its ops keep forward state
// for their backward (engine/op_common.go).
type Graph struct {
	Model         *Model
	Batch, SeqLen int

	G       *G.ExprGraph
	Binding *engine.Binding // one node per parameter, sharing its memory

	Tokens, Targets               *G.Node // int32 (B·T) data inputs
	Logits, Logp, Entropy, Values *G.Node
	LogitBias                     *G.Node // float32 (B·T, V) input of a masked graph; nil otherwise
	Positions                     *G.Node // int32 (N) trunk positions of a prefix graph (prefix.go); nil otherwise

	tokens, targets, bias *tensor.Dense
	prefix                *PrefixShape  // a prefix graph's layout, or nil
	head                  *headRows     // a head-rows graph's listed rows (head_rows.go), or nil
	positions             *tensor.Dense // a prefix graph's positions
	lens                  []int32       // a prefix graph's prompt lengths

	fwd, train *engine.Machine // gorgonia's outputs kept between runs (engine/machine.go)
	loss       *G.Node
	grads      *engine.Binding // the parameters the loss depends on
}

// NewGraph builds the forward graph for batches of `batch` sequences of
// seqLen ≤ Context tokens.
func (m *Model) NewGraph(batch, seqLen int) (*Graph, error) {
	return m.newGraphWith(batch, seqLen, false, nil)
}

// NewMaskedGraph is NewGraph with a logit bias input (LogitBias, zero until
// SetLogitBias) under Logp and Entropy. The model needs an LM head.
func (m *Model) NewMaskedGraph(batch, seqLen int) (*Graph, error) {
	if !m.Config.LMHead {
		return nil, fmt.Errorf("model graph: a masked graph needs an LM head")
	}
	return m.newGraphWith(batch, seqLen, true, nil)
}

// newGraphWith builds a plain graph, or with head not nil a head-rows
// graph (head_rows.go).
func (m *Model) newGraphWith(batch, seqLen int, masked bool, head *headRows) (*Graph, error) {
	engine.UseFastBLAS() // gorgonia's matmuls on the assembly Sgemm (engine/blas.go)
	c := m.Config
	if batch < 1 || seqLen < 1 || seqLen > c.Context {
		return nil, fmt.Errorf("model graph: need batch ≥ 1 and 1 ≤ seqLen ≤ context %d, got %d, %d", c.Context, batch, seqLen)
	}
	n := batch * seqLen
	g := &Graph{Model: m, Batch: batch, SeqLen: seqLen, G: G.NewGraph(), head: head}
	g.Binding = m.Params.Bind(g.G)
	g.tokens = tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]int32, n)))
	g.Tokens = G.NodeFromAny(g.G, g.tokens, G.WithName("tokens"))
	if c.LMHead {
		g.targets = tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]int32, n)))
		g.Targets = G.NodeFromAny(g.G, g.targets, G.WithName("targets"))
	}
	if masked {
		g.bias = tensor.New(tensor.WithShape(n, c.Vocab), tensor.WithBacking(make([]float32, n*c.Vocab)))
		g.LogitBias = G.NodeFromAny(g.G, g.bias, G.WithName("logit_bias"))
	}
	if err := g.build(); err != nil {
		return nil, fmt.Errorf("model graph (B=%d, T=%d): %w", batch, seqLen, err)
	}
	return g, nil
}

// build adds the network: x is (B·T, C) throughout the trunk.
func (g *Graph) build() error {
	c := g.Model.Config
	p := func(name string) *G.Node {
		n, err := g.Binding.Node(name)
		if err != nil {
			panic(err) // every name comes from this package
		}
		return n
	}
	x, err := g.embed(p(NameTokenEmbedding), p(NamePositionEmbedding))
	if err != nil {
		return err
	}
	for l := 0; l < c.Layers; l++ {
		atRows := g.head != nil && l == c.Layers-1 // head_rows.go
		if x, err = g.block(x, Layer(l), p, atRows); err != nil {
			return fmt.Errorf("block %d: %w", l, err)
		}
	}
	if x, err = g.outputRows(x); err != nil {
		return err
	}
	xf, err := engine.LayerNorm(x, p(NameFinalNormWeight), p(NameFinalNormBias), LayerNormEps)
	if err != nil {
		return err
	}
	targets, bias, err := g.headInputs()
	if err != nil {
		return err
	}
	rows := xf.Shape()[0] // B·T, or a head-rows graph's capacity
	if c.LMHead {
		if g.Logits, err = engine.MatMul(xf, p(NameLMHead)); err != nil { // (rows, V)
			return err
		}
		z := g.Logits
		if bias != nil {
			if z, err = G.Add(g.Logits, bias); err != nil {
				return err
			}
		}
		logp, ent, err := engine.TokenLogProbEntropy(z, targets)
		if err != nil {
			return err
		}
		if g.Logp, err = g.headOutput(logp); err != nil {
			return err
		}
		if g.Entropy, err = g.headOutput(ent); err != nil {
			return err
		}
	}
	if c.ValueHead {
		v, err := linear(xf, p(NameValueWeight), p(NameValueBias)) // (rows, 1)
		if err != nil {
			return fmt.Errorf("value head: %w", err)
		}
		if v, err = engine.CopyReshape(v, tensor.Shape{rows}); err != nil {
			return err
		}
		if g.Values, err = g.headOutput(v); err != nil {
			return err
		}
	}
	return nil
}

// block is one pre-LN transformer block on x (B·T, C):
//
//	x = x + Proj(Attn(QKV(LN1(x))))      QKV: (B·T,C)→(B·T,3C), Attn: →(B·T,C)
//	x = x + FCProj(GELU(FC(LN2(x))))    FC: (B·T,C)→(B·T,M), FCProj: →(B·T,C)
//
// atRows (a head-rows graph's last block, head_rows.go) runs everything
// after the QKV product at the listed rows only: the attention's queries
// there (over every row's keys and values), and the residual gathered
// there, so the block's output is (capacity, C).
func (g *Graph) block(x *G.Node, n LayerNames, p func(string) *G.Node, atRows bool) (*G.Node, error) {
	h, err := engine.LayerNorm(x, p(n.Norm1Weight), p(n.Norm1Bias), LayerNormEps)
	if err != nil {
		return nil, err
	}
	qkv, err := linear(h, p(n.AttnWeight), p(n.AttnBias))
	if err != nil {
		return nil, err
	}
	att, err := g.attend(qkv, atRows)
	if err != nil {
		return nil, err
	}
	proj, err := linear(att, p(n.ProjWeight), p(n.ProjBias))
	if err != nil {
		return nil, err
	}
	if atRows {
		if x, err = g.gatherRows(x); err != nil {
			return nil, err
		}
	}
	if x, err = G.Add(x, proj); err != nil {
		return nil, err
	}
	if h, err = engine.LayerNorm(x, p(n.Norm2Weight), p(n.Norm2Bias), LayerNormEps); err != nil {
		return nil, err
	}
	fc, err := linear(h, p(n.FCWeight), p(n.FCBias))
	if err != nil {
		return nil, err
	}
	if fc, err = engine.GELU(fc); err != nil {
		return nil, err
	}
	if proj, err = linear(fc, p(n.FCProjWeight), p(n.FCProjB)); err != nil {
		return nil, err
	}
	return G.Add(x, proj)
}

// linear is x·W + b for x (N,in), W (in,out), b (out): the engine's matrix
// product (bitwise gorgonia's Mul, without its allocations) and the fused
// bias op.
func linear(x, w, b *G.Node) (*G.Node, error) {
	xw, err := engine.MatMul(x, w)
	if err != nil {
		return nil, err
	}
	return engine.AddBias(xw, b)
}

// SetInputs copies the batch into the graph's input tensors: tokens and
// targets are (B·T) each, row b·T + t, so targets[i] is the token that
// follows tokens[i] (padding: any valid id, masked by the caller's loss).
// A model without an LM head takes nil targets. Every id must lie in
// [0, Vocab); on error nothing is changed.
func (g *Graph) SetInputs(tokens, targets []int32) error {
	if g.prefix != nil {
		return fmt.Errorf("set inputs: a prefix graph takes SetPrefixInputs")
	}
	n, v := g.Batch*g.SeqLen, g.Model.Config.Vocab
	if len(tokens) != n {
		return fmt.Errorf("set inputs: %d tokens, want B·T = %d·%d = %d", len(tokens), g.Batch, g.SeqLen, n)
	}
	if err := checkIDs("token", tokens, v); err != nil {
		return fmt.Errorf("set inputs: %w", err)
	}
	if g.targets == nil {
		if targets != nil {
			return fmt.Errorf("set inputs: this model has no LM head, so it takes no targets")
		}
	} else {
		if len(targets) != n {
			return fmt.Errorf("set inputs: %d targets, want B·T = %d", len(targets), n)
		}
		if err := checkIDs("target", targets, v); err != nil {
			return fmt.Errorf("set inputs: %w", err)
		}
		copy(g.targets.Int32s(), targets)
	}
	copy(g.tokens.Int32s(), tokens)
	return nil
}

// SetLogitBias copies bias (B·T·V, row-major like Logits) into a masked
// graph's LogitBias; on error nothing is changed.
func (g *Graph) SetLogitBias(bias []float32) error {
	if g.bias == nil {
		return fmt.Errorf("set logit bias: not a masked graph (NewMaskedGraph)")
	}
	if n := g.Batch * g.SeqLen * g.Model.Config.Vocab; len(bias) != n {
		return fmt.Errorf("set logit bias: %d values, want B·T·V = %d", len(bias), n)
	}
	copy(g.bias.Float32s(), bias)
	return nil
}

func checkIDs(what string, ids []int32, vocab int) error {
	for i, id := range ids {
		if id < 0 || int(id) >= vocab {
			return fmt.Errorf("%s %d at index %d is outside [0, %d)", what, id, i, vocab)
		}
	}
	return nil
}

// Compile adds the gradient of the scalar loss (built by the caller on
// Logp, Entropy, Values) w.r.t. every parameter it depends on, and the
// machine that runs forward and backward. Parameters the loss does not
// reach (the value head under a policy-only loss, say) get no gradient
// node; AccumulateGrads leaves their Grad alone. Compile once per Graph.
func (g *Graph) Compile(loss *G.Node) (err error) {
	if g.train != nil {
		return fmt.Errorf("compile: the graph is already compiled")
	}
	if loss == nil || !loss.IsScalar() {
		return fmt.Errorf("compile: the loss must be a scalar node, got %v", shapeOf(loss))
	}
	if loss.Graph() != g.G {
		return fmt.Errorf("compile: the loss belongs to another graph")
	}
	reach := map[*G.Node]bool{}
	for _, n := range g.G.ExactSubgraphRoots(loss).AllNodes() {
		reach[n] = true
	}
	sub := &engine.Binding{}
	for i, n := range g.Binding.Nodes {
		if reach[n] {
			sub.Params = append(sub.Params, g.Binding.Params[i])
			sub.Nodes = append(sub.Nodes, n)
		}
	}
	if len(sub.Nodes) == 0 {
		return fmt.Errorf("compile: the loss depends on no parameter")
	}
	grads, err := G.Grad(loss, sub.Nodes...)
	if err != nil {
		return fmt.Errorf("compile: gradient: %w", err)
	}
	keep := append(g.outputs(), grads...)
	if _, err := engine.KeepAlive(keep...); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	if g.train, err = engine.NewMachine(g.G); err != nil {
		return err
	}
	g.loss, g.grads = loss, sub
	return nil
}

// Run runs forward and backward on the current inputs and weights. Then
// the outputs and the loss hold this batch's values and AccumulateGrads
// can add the gradients into the parameters' Grad.
func (g *Graph) Run() error {
	if g.train == nil {
		return fmt.Errorf("run: compile a loss first")
	}
	if err := g.train.Run(); err != nil {
		return fmt.Errorf("run (B=%d, T=%d): %w", g.Batch, g.SeqLen, err)
	}
	return nil
}

// Forward runs only the forward pass (no loss, no backward), by a second
// machine over the outputs' part of the graph: old log-probs, values,
// evaluation. The loss node is not evaluated.
func (g *Graph) Forward() (err error) {
	if g.fwd == nil {
		if g.fwd, err = engine.NewMachine(g.G.ExactSubgraphRoots(g.outputs()...)); err != nil {
			return fmt.Errorf("forward: %w", err)
		}
	}
	if err := g.fwd.Run(); err != nil {
		return fmt.Errorf("forward (B=%d, T=%d): %w", g.Batch, g.SeqLen, err)
	}
	return nil
}

// outputs lists the output nodes the model has.
func (g *Graph) outputs() G.Nodes {
	var out G.Nodes
	for _, n := range []*G.Node{g.Logits, g.Logp, g.Entropy, g.Values} {
		if n != nil {
			out = append(out, n)
		}
	}
	return out
}

// AccumulateGrads adds the gradients of the last Run into the parameters'
// Grad (zero them first with Params.ZeroGrad; several micro-batches may be
// summed).
func (g *Graph) AccumulateGrads() error {
	if g.grads == nil {
		return fmt.Errorf("accumulate grads: compile a loss first")
	}
	return g.grads.AccumulateGrads()
}

// Loss is the loss of the last Run.
func (g *Graph) Loss() (float64, error) {
	if g.loss == nil || g.loss.Value() == nil {
		return 0, fmt.Errorf("loss: not computed yet")
	}
	switch v := g.loss.Value().Data().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("loss: unexpected value %T", g.loss.Value().Data())
}

// Float32s is the data of a float32 node's current value (nil before a
// run): a view valid until the graph runs again.
func Float32s(n *G.Node) []float32 {
	if n == nil || n.Value() == nil {
		return nil
	}
	if d, ok := n.Value().(*tensor.Dense); ok && d.Dtype() == tensor.Float32 {
		return d.Float32s()[:d.Shape().TotalSize()]
	}
	return nil
}

// Close releases the machines. The graph's memory is freed once nothing
// holds the Graph; for that, no op of the graph may point back at the
// Graph or its machines: gorgonia's tape machine carries a finalizer, and
// Go never frees a cycle through an object with one
// (TestClosedGraphsAreCollected).
func (g *Graph) Close() {
	for _, m := range []*engine.Machine{g.fwd, g.train} {
		if m != nil {
			m.Close()
		}
	}
}

// shapeOf is n's shape, or nil for a nil node (for error messages).
func shapeOf(n *G.Node) tensor.Shape {
	if n == nil {
		return nil
	}
	return n.Shape()
}
