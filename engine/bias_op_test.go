package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestAddBiasGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 1))
	x := opsTensor(rng, 0, 1, 5, 3)
	b := opsTensor(rng, 0, 1, 3)
	res, err := GradCheck([]*tensor.Dense{x, b}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		y, err := AddBias(xs[0], xs[1])
		if err != nil {
			return nil, err
		}
		return weightedSumSeeded(g, y, 8)
	}, 1e-2, 1)
	require.NoError(t, err)
	assert.Less(t, res.MaxRelErr, 1e-3, res.Where)
}

// y = x + b row by row, by hand: x = [[1 2] [3 4]], b = [10 20].
func TestAddBiasValuesAndBadInput(t *testing.T) {
	g := G.NewGraph()
	x := G.NodeFromAny(g, tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 2, 3, 4})), G.WithName("x"))
	b := G.NodeFromAny(g, tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{10, 20})), G.WithName("b"))
	y, err := AddBias(x, b)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	require.NoError(t, m.RunAll())
	assert.Equal(t, []float32{11, 22, 13, 24}, y.Value().Data())

	wrong := G.NodeFromAny(g, tensor.New(tensor.WithShape(3), tensor.Of(tensor.Float32)), G.WithName("b3"))
	_, err = AddBias(x, wrong)
	assert.ErrorContains(t, err, "want x (N,D) and b (D)")
	_, err = AddBias(nil, b)
	assert.Error(t, err)
}
