package engine

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Init fills a freshly allocated parameter from its own seeded RNG.
type Init func(rng *rand.Rand, data []float32)

// Normal draws N(0, std²) values.
func Normal(std float64) Init {
	return func(rng *rand.Rand, data []float32) {
		for i := range data {
			data[i] = float32(rng.NormFloat64() * std)
		}
	}
}

// Constant sets every value to c (Constant(0) for biases, Constant(1) for
// LayerNorm gains).
func Constant(c float32) Init {
	return func(_ *rand.Rand, data []float32) {
		for i := range data {
			data[i] = c
		}
	}
}

// Param is one named float32 tensor of the model and its accumulated gradient.
// Value is the memory every user reads: the gorgonia graph binds it (no copy),
// the rollout forward reads it, the optimiser updates it in place.
type Param struct {
	Name  string
	Shape []int
	Value *tensor.Dense
	Grad  []float32
	init  Init
}

// Data is the parameter's row-major backing slice.
func (p *Param) Data() []float32 { return p.Value.Float32s() }

// Size is the number of scalars in the parameter.
func (p *Param) Size() int { return len(p.Grad) }

// ParamStore holds a model's parameters in a fixed, insertion order.
type ParamStore struct {
	list   []*Param
	byName map[string]*Param
}

// NewParamStore returns an empty store.
func NewParamStore() *ParamStore { return &ParamStore{byName: map[string]*Param{}} }

// Add registers a parameter of the given shape, allocated and zeroed; Init
// (below) fills it. Names must be unique and shapes positive.
func (s *ParamStore) Add(name string, shape []int, init Init) (*Param, error) {
	if _, dup := s.byName[name]; dup {
		return nil, fmt.Errorf("param store: duplicate parameter %q", name)
	}
	size := 1
	for _, d := range shape {
		if d <= 0 {
			return nil, fmt.Errorf("param store: parameter %q has bad shape %v", name, shape)
		}
		size *= d
	}
	if len(shape) == 0 {
		return nil, fmt.Errorf("param store: parameter %q has an empty shape", name)
	}
	sh := append([]int(nil), shape...)
	p := &Param{
		Name:  name,
		Shape: sh,
		Value: tensor.New(tensor.WithShape(sh...), tensor.WithBacking(make([]float32, size))),
		Grad:  make([]float32, size),
		init:  init,
	}
	s.list = append(s.list, p)
	s.byName[name] = p
	return p, nil
}

// Init fills every parameter from the run seed. Each parameter draws from its
// own stream, seeded by (seed, hash of its name), so adding or reordering
// parameters never changes the values of the others.
func (s *ParamStore) Init(seed uint64) {
	for _, p := range s.list {
		if p.init == nil {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(p.Name))
		p.init(rand.New(rand.NewPCG(seed, h.Sum64())), p.Data())
	}
}

// Params lists the parameters in insertion order.
func (s *ParamStore) Params() []*Param { return s.list }

// Get finds a parameter by name.
func (s *ParamStore) Get(name string) (*Param, bool) {
	p, ok := s.byName[name]
	return p, ok
}

// NumParams is the total number of scalars.
func (s *ParamStore) NumParams() int {
	n := 0
	for _, p := range s.list {
		n += p.Size()
	}
	return n
}

// ZeroGrad clears every accumulated gradient.
func (s *ParamStore) ZeroGrad() {
	for _, p := range s.list {
		clear(p.Grad)
	}
}

// Binding ties parameters to the nodes of one gorgonia graph.
type Binding struct {
	Params []*Param
	Nodes  G.Nodes
}

// Bind creates, in g, one node per parameter that shares the parameter's
// memory: in-place optimiser updates are seen by the next run of the graph.
func (s *ParamStore) Bind(g *G.ExprGraph) *Binding {
	b := &Binding{}
	for _, p := range s.list {
		n := G.NodeFromAny(g, p.Value, G.WithName(p.Name))
		b.Params = append(b.Params, p)
		b.Nodes = append(b.Nodes, n)
	}
	return b
}

// Node returns the node bound to the named parameter.
func (b *Binding) Node(name string) (*G.Node, error) {
	for i, p := range b.Params {
		if p.Name == name {
			return b.Nodes[i], nil
		}
	}
	return nil, fmt.Errorf("binding: no parameter %q", name)
}

// AccumulateGrads adds each bound node's gradient (after a backward run) to
// its parameter's Grad, so several micro-batches can be summed before a step.
func (b *Binding) AccumulateGrads() error {
	for i, p := range b.Params {
		gv, err := b.Nodes[i].Grad()
		if err != nil {
			return fmt.Errorf("gradient of %s: %w", p.Name, err)
		}
		var gd []float32
		ok := false
		if d, isDense := gv.(*tensor.Dense); isDense && d.Dtype() == tensor.Float32 && !d.IsView() {
			gd, ok = d.Float32s(), true // no reflection: Data() allocates
		} else {
			gd, ok = gv.Data().([]float32)
		}
		if !ok || len(gd) != len(p.Grad) {
			return fmt.Errorf("gradient of %s: want %d float32, got %T", p.Name, len(p.Grad), gv.Data())
		}
		for j, x := range gd {
			p.Grad[j] += x
		}
	}
	return nil
}
