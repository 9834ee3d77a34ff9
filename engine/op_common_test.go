package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// opsTensor is a float32 tensor of offset + scale·N(0,1) values.
func opsTensor(rng *rand.Rand, offset, scale float64, shape ...int) *tensor.Dense {
	n := tensor.Shape(shape).TotalSize()
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(offset + scale*rng.NormFloat64())
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data))
}

// weightedSum builds loss = Σ w ⊙ y with a fixed random w of y's shape, so
// every output element gets a different weight (a plain Σ y would hide
// errors that cancel) and dloss/dy = w does not depend on y.
func weightedSumSeeded(g *G.ExprGraph, y *G.Node, seed uint64) (*G.Node, error) {
	w := opsTensor(rand.New(rand.NewPCG(seed, 99)), 0, 1, y.Shape()...)
	wn := G.NodeFromAny(g, w, G.WithName(fmt.Sprintf("w%d", seed)))
	p, err := G.HadamardProd(wn, y)
	if err != nil {
		return nil, err
	}
	return G.Sum(p)
}

// benchLossOnly times the graph of benchOpGraph without the op: the loss
// Σ w ⊙ x on an input of the op's output shape, and its gradient. The
// difference to benchOpGraph is the op's own time and allocations.
func benchLossOnly(b *testing.B, shape ...int) {
	in := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float32))
	benchOpGraph(b, []*tensor.Dense{in}, func(xs G.Nodes) (*G.Node, error) { return xs[0], nil }, 0)
}

// benchOpGraph times one forward and backward run of a graph holding the
// op under test, as the trainer runs it: built once, then m.Reset and
// m.RunAll per iteration, after one warm-up run. build gets one node per input and returns the op's
// output; the loss is Σ w ⊙ output. flops (per run, forward + backward) is
// reported as GFLOP/s when > 0.
func benchOpGraph(b *testing.B, inputs []*tensor.Dense, build func(xs G.Nodes) (*G.Node, error), flops float64) {
	g := G.NewGraph()
	xs := make(G.Nodes, len(inputs))
	for k, in := range inputs {
		xs[k] = G.NodeFromAny(g, in, G.WithName(fmt.Sprintf("in%d", k)))
	}
	y, err := build(xs)
	if err != nil {
		b.Fatal(err)
	}
	loss, err := weightedSumSeeded(g, y, 1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := G.Grad(loss, xs...); err != nil {
		b.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	// One untimed run first: the steady state of training, where the ops'
	// buffers already exist, is what is measured.
	if err := m.RunAll(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Reset()
		if err := m.RunAll(); err != nil {
			b.Fatal(err)
		}
	}
	if flops > 0 {
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
}
