package model

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/engine"
)

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
