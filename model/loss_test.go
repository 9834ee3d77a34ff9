package model

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// testLoss is the loss of the whole-model checks, on a graph with an LM
// head and/or a value head:
//
//	L = −Σ_i mask_i·logp_i / Σ mask  +  valueCoef·Σ_i mask_i·(v_i − ret_i)² / Σ mask
//
// built from stock gorgonia ops (HadamardProd, Sub, Square, Sum), whose
// gradients are exact; the weights are folded into constant tensors. The
// same formula is bench/torch/make_fixtures.py's loss.
type testLoss struct {
	mask, returns []float32
	valueCoef     float64
}

func (l testLoss) build(g *Graph) (*G.Node, error) {
	n := g.Batch * g.SeqLen
	if len(l.mask) != n || (g.Values != nil && len(l.returns) != n) {
		return nil, fmt.Errorf("test loss: want %d mask and returns", n)
	}
	count := 0.0
	for _, m := range l.mask {
		count += float64(m)
	}
	vec := func(name string, f func(i int) float32) *G.Node {
		d := make([]float32, n)
		for i := range d {
			d[i] = f(i)
		}
		return G.NodeFromAny(g.G, tensor.New(tensor.WithShape(n), tensor.WithBacking(d)), G.WithName(name))
	}
	var terms G.Nodes
	if g.Logp != nil {
		w := vec("loss_w_logp", func(i int) float32 { return float32(-float64(l.mask[i]) / count) })
		t, err := G.HadamardProd(w, g.Logp)
		if err != nil {
			return nil, err
		}
		terms = append(terms, G.Must(G.Sum(t)))
	}
	if g.Values != nil {
		ret := vec("loss_returns", func(i int) float32 { return l.returns[i] })
		w := vec("loss_w_value", func(i int) float32 { return float32(l.valueCoef * float64(l.mask[i]) / count) })
		diff, err := G.Sub(g.Values, ret)
		if err != nil {
			return nil, err
		}
		sq, err := G.Square(diff)
		if err != nil {
			return nil, err
		}
		terms = append(terms, G.Must(G.Sum(G.Must(G.HadamardProd(w, sq)))))
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return G.Add(terms[0], terms[1])
}

// eval computes the same loss in float64 from a run's outputs.
func (l testLoss) eval(g *Graph) float64 {
	logp, values := Float32s(g.Logp), Float32s(g.Values)
	count, sum := 0.0, 0.0
	for i, m := range l.mask {
		count += float64(m)
		if logp != nil {
			sum -= float64(m) * float64(logp[i])
		}
		if values != nil {
			d := float64(values[i]) - float64(l.returns[i])
			sum += l.valueCoef * float64(m) * d * d
		}
	}
	return sum / count
}
