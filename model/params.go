package model

import (
	"fmt"
	"math"

	"arew/engine"
)

// Parameter names and layouts (also documented in doc.go). Matrices are
// stored (in, out), as Hugging Face GPT-2's Conv1D stores them, so a layer
// computes y = x·W + b with x (N, in).
const (
	NameTokenEmbedding    = "wte"               // (Vocab, C)
	NamePositionEmbedding = "wpe"               // (Context, C)
	NameFinalNormWeight   = "ln_f.weight"       // (C)
	NameFinalNormBias     = "ln_f.bias"         // (C)
	NameLMHead            = "lm_head.weight"    // (C, Vocab); no bias
	NameValueWeight       = "value_head.weight" // (C, 1)
	NameValueBias         = "value_head.bias"   // (1)
)

// LayerNames are the parameter names of block l.
type LayerNames struct {
	Norm1Weight, Norm1Bias string // (C)
	AttnWeight, AttnBias   string // (C, 3C), (3C): [q | k | v]
	ProjWeight, ProjBias   string // (C, C), (C)
	Norm2Weight, Norm2Bias string // (C)
	FCWeight, FCBias       string // (C, MLP), (MLP)
	FCProjWeight, FCProjB  string // (MLP, C), (C)
}

// Layer returns the names of block l.
func Layer(l int) LayerNames {
	p := fmt.Sprintf("h.%d.", l)
	return LayerNames{
		Norm1Weight: p + "ln_1.weight", Norm1Bias: p + "ln_1.bias",
		AttnWeight: p + "attn.c_attn.weight", AttnBias: p + "attn.c_attn.bias",
		ProjWeight: p + "attn.c_proj.weight", ProjBias: p + "attn.c_proj.bias",
		Norm2Weight: p + "ln_2.weight", Norm2Bias: p + "ln_2.bias",
		FCWeight: p + "mlp.c_fc.weight", FCBias: p + "mlp.c_fc.bias",
		FCProjWeight: p + "mlp.c_proj.weight", FCProjB: p + "mlp.c_proj.bias",
	}
}

// NewParams registers the parameters of a network with config c in a new
// store, with GPT-2's initialisation: weights N(0, InitStd²), the two
// residual output projections of each block N(0, (InitStd/√(2·Layers))²),
// positions N(0, (InitStd/2)²), biases 0, LayerNorm gains 1. Call
// store.Init(seed) to draw the values.
func NewParams(c Config) (*engine.ParamStore, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s := engine.NewParamStore()
	C, M := c.DModel, c.MLP
	std := c.InitStd
	resid := std / math.Sqrt(2*float64(c.Layers))
	type spec struct {
		name  string
		shape []int
		init  engine.Init
	}
	specs := []spec{
		{NameTokenEmbedding, []int{c.Vocab, C}, engine.Normal(std)},
		{NamePositionEmbedding, []int{c.Context, C}, engine.Normal(std / 2)},
	}
	for l := 0; l < c.Layers; l++ {
		n := Layer(l)
		specs = append(specs,
			spec{n.Norm1Weight, []int{C}, engine.Constant(1)},
			spec{n.Norm1Bias, []int{C}, engine.Constant(0)},
			spec{n.AttnWeight, []int{C, 3 * C}, engine.Normal(std)},
			spec{n.AttnBias, []int{3 * C}, engine.Constant(0)},
			spec{n.ProjWeight, []int{C, C}, engine.Normal(resid)},
			spec{n.ProjBias, []int{C}, engine.Constant(0)},
			spec{n.Norm2Weight, []int{C}, engine.Constant(1)},
			spec{n.Norm2Bias, []int{C}, engine.Constant(0)},
			spec{n.FCWeight, []int{C, M}, engine.Normal(std)},
			spec{n.FCBias, []int{M}, engine.Constant(0)},
			spec{n.FCProjWeight, []int{M, C}, engine.Normal(resid)},
			spec{n.FCProjB, []int{C}, engine.Constant(0)},
		)
	}
	specs = append(specs,
		spec{NameFinalNormWeight, []int{C}, engine.Constant(1)},
		spec{NameFinalNormBias, []int{C}, engine.Constant(0)},
	)
	if c.LMHead {
		specs = append(specs, spec{NameLMHead, []int{C, c.Vocab}, engine.Normal(std)})
	}
	if c.ValueHead {
		specs = append(specs,
			spec{NameValueWeight, []int{C, 1}, engine.Normal(std)},
			spec{NameValueBias, []int{1}, engine.Constant(0)},
		)
	}
	for _, sp := range specs {
		if _, err := s.Add(sp.name, sp.shape, sp.init); err != nil {
			return nil, err
		}
	}
	return s, nil
}
