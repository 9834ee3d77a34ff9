package engine

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GradCheckResult reports the worst disagreement between the analytic
// gradient of a graph and central finite differences.
type GradCheckResult struct {
	MaxAbsErr float64 // max |analytic − numeric|
	MaxRelErr float64 // max |analytic − numeric| / max(1, |numeric|)
	Where     string  // "input[k][i]" of the worst relative error
}

// GradCheck compares, for every element of every input, the gradient that
// gorgonia computes for the scalar loss built by build with the central
// difference (f(x+ε) − f(x−ε)) / 2ε. Inputs are float32 tensors; the loss is
// evaluated in the graph's float32 arithmetic, so choose ε around 1e-2..1e-3
// and compare with a tolerance of about 1e-2 relative.
//
// build receives one variable node per input (shaped like it) and returns
// the scalar loss node. Elements at stride > 1 are sampled: every stride-th
// element of each input is checked, which keeps large tensors affordable.
func GradCheck(inputs []*tensor.Dense, build func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error), eps float64, stride int) (GradCheckResult, error) {
	if stride < 1 {
		stride = 1
	}
	g := G.NewGraph()
	xs := make(G.Nodes, len(inputs))
	for k, in := range inputs {
		xs[k] = G.NodeFromAny(g, in, G.WithName(fmt.Sprintf("gradcheck_in%d", k)))
	}
	loss, err := build(g, xs)
	if err != nil {
		return GradCheckResult{}, fmt.Errorf("gradcheck: build: %w", err)
	}
	if _, err := G.Grad(loss, xs...); err != nil {
		return GradCheckResult{}, fmt.Errorf("gradcheck: grad: %w", err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()

	eval := func() (float64, error) {
		m.Reset()
		if err := m.RunAll(); err != nil {
			return 0, err
		}
		switch v := loss.Value().Data().(type) {
		case float32:
			return float64(v), nil
		case float64:
			return v, nil
		case []float32:
			if len(v) == 1 {
				return float64(v[0]), nil
			}
		}
		return 0, fmt.Errorf("gradcheck: loss is not a scalar: %v", loss.Shape())
	}

	if _, err := eval(); err != nil {
		return GradCheckResult{}, fmt.Errorf("gradcheck: forward: %w", err)
	}
	analytic := make([][]float32, len(xs))
	for k, x := range xs {
		gv, err := x.Grad()
		if err != nil {
			return GradCheckResult{}, fmt.Errorf("gradcheck: input %d has no gradient: %w", k, err)
		}
		analytic[k] = append([]float32(nil), gv.Data().([]float32)...)
	}

	var res GradCheckResult
	for k, in := range inputs {
		data := in.Data().([]float32)
		for i := 0; i < len(data); i += stride {
			orig := data[i]
			data[i] = orig + float32(eps)
			fp, err := eval()
			if err != nil {
				return res, err
			}
			data[i] = orig - float32(eps)
			fm, err := eval()
			if err != nil {
				return res, err
			}
			data[i] = orig
			// The perturbation actually applied, after float32 rounding.
			h := float64(orig+float32(eps)) - float64(orig-float32(eps))
			num := (fp - fm) / h
			abs := math.Abs(float64(analytic[k][i]) - num)
			rel := abs / math.Max(1, math.Abs(num))
			if abs > res.MaxAbsErr {
				res.MaxAbsErr = abs
			}
			if rel > res.MaxRelErr || math.IsNaN(rel) {
				res.MaxRelErr = rel
				res.Where = fmt.Sprintf("input[%d][%d]: analytic %g numeric %g", k, i, analytic[k][i], num)
			}
		}
	}
	return res, nil
}
