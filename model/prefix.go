package model

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/engine"
)

// PrefixShape is the layout of a prefix graph: Groups prompts of at most
// Prompt tokens, each followed by Answers answer blocks of AnswerLen rows.
// The trunk's rows are the prompts first (row p·Prompt + s: token s of
// prompt p), then the answer blocks (row Groups·Prompt + (p·Answers +
// g)·AnswerLen + j: row j of answer g of group p), N = Rows() in all.
type PrefixShape struct {
	Groups, Prompt, Answers, AnswerLen int
}

// Rows is the number of trunk rows.
func (s PrefixShape) Rows() int { return s.promptRows() + s.answerRows() }

func (s PrefixShape) promptRows() int { return s.Groups * s.Prompt }
func (s PrefixShape) answerRows() int { return s.Groups * s.Answers * s.AnswerLen }

// NewPrefixGraph builds a graph in which a group of answers shares its
// prompt: the prompt goes through the trunk once, and every answer block
// attends to it as if it followed it in its own sequence. It computes what
// the plain graph computes on the Groups·Answers sequences "prompt p, then
// answer (p, g)" at the answer blocks' rows: with SetPrefixInputs given
// prompt p's first lens[p] tokens and, in answer block (p, g), the rest of
// that sequence at positions lens[p], lens[p]+1, …, row j of the block is
// the plain graph's position lens[p]+j of that sequence, in value and in
// gradient (TestPrefixGraphMatchesPlainGraph). The prompt's keys and
// values are computed once, and their gradient sums over the answers that
// read them.
//
// Its outputs are those of the answer rows only: the graph's Batch is
// Groups·Answers and SeqLen AnswerLen, so Logits, Logp, Entropy, Values,
// targets and the logit bias of a masked graph (masked) are laid out as a
// plain graph's for Batch sequences of SeqLen, and a loss built on a plain
// graph's outputs builds on these unchanged. Prompt ≤ Context.
func (m *Model) NewPrefixGraph(s PrefixShape, masked bool) (*Graph, error) {
	engine.UseFastBLAS()
	c := m.Config
	if s.Groups < 1 || s.Prompt < 1 || s.Answers < 1 || s.AnswerLen < 1 || s.Prompt > c.Context {
		return nil, fmt.Errorf("prefix graph: need every size ≥ 1 and prompt ≤ context %d, got %+v", c.Context, s)
	}
	if masked && !c.LMHead {
		return nil, fmt.Errorf("prefix graph: a masked graph needs an LM head")
	}
	n, na := s.Rows(), s.answerRows()
	g := &Graph{Model: m, Batch: s.Groups * s.Answers, SeqLen: s.AnswerLen, G: G.NewGraph(), prefix: &s}
	g.Binding = m.Params.Bind(g.G)
	g.tokens = tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]int32, n)))
	g.Tokens = G.NodeFromAny(g.G, g.tokens, G.WithName("tokens"))
	g.positions = tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]int32, n)))
	g.Positions = G.NodeFromAny(g.G, g.positions, G.WithName("positions"))
	g.lens = make([]int32, s.Groups)
	if c.LMHead {
		g.targets = tensor.New(tensor.WithShape(na), tensor.WithBacking(make([]int32, na)))
		g.Targets = G.NodeFromAny(g.G, g.targets, G.WithName("targets"))
	}
	if masked {
		g.bias = tensor.New(tensor.WithShape(na, c.Vocab), tensor.WithBacking(make([]float32, na*c.Vocab)))
		g.LogitBias = G.NodeFromAny(g.G, g.bias, G.WithName("logit_bias"))
	}
	if err := g.build(); err != nil {
		return nil, fmt.Errorf("prefix graph %+v: %w", s, err)
	}
	return g, nil
}

// SetPrefixInputs loads a prefix graph: tokens and positions (N each, the
// trunk's rows), lens (Groups: how many leading rows of each prompt its
// answers attend to, ≤ Prompt) and targets (Batch·SeqLen, the answer rows';
// nil without an LM head). Ids must lie in [0, Vocab), positions in [0,
// Context); on error nothing is changed.
func (g *Graph) SetPrefixInputs(tokens, positions, lens, targets []int32) error {
	s := g.prefix
	if s == nil {
		return fmt.Errorf("set prefix inputs: not a prefix graph (NewPrefixGraph)")
	}
	c, n := g.Model.Config, s.Rows()
	if len(tokens) != n || len(positions) != n || len(lens) != s.Groups {
		return fmt.Errorf("set prefix inputs: %d tokens, %d positions, %d lengths; want %d, %d, %d", len(tokens), len(positions), len(lens), n, n, s.Groups)
	}
	if err := checkIDs("token", tokens, c.Vocab); err != nil {
		return fmt.Errorf("set prefix inputs: %w", err)
	}
	if err := checkIDs("position", positions, c.Context); err != nil {
		return fmt.Errorf("set prefix inputs: %w", err)
	}
	if err := checkIDs("prompt length", lens, s.Prompt+1); err != nil {
		return fmt.Errorf("set prefix inputs: %w", err)
	}
	if g.targets == nil {
		if targets != nil {
			return fmt.Errorf("set prefix inputs: this model has no LM head, so it takes no targets")
		}
	} else {
		if len(targets) != s.answerRows() {
			return fmt.Errorf("set prefix inputs: %d targets, want %d", len(targets), s.answerRows())
		}
		if err := checkIDs("target", targets, c.Vocab); err != nil {
			return fmt.Errorf("set prefix inputs: %w", err)
		}
		copy(g.targets.Int32s(), targets)
	}
	copy(g.tokens.Int32s(), tokens)
	copy(g.positions.Int32s(), positions)
	copy(g.lens, lens)
	return nil
}

// embed is the input layer: the engine's embedding (position t of each
// row of T), or for a prefix graph the embedding at the given positions.
func (g *Graph) embed(wte, wpe *G.Node) (*G.Node, error) {
	if g.prefix == nil {
		return engine.Embedding(wte, wpe, g.Tokens, g.Batch, g.SeqLen)
	}
	c := g.Model.Config
	op := &posEmbeddingOp{vocab: c.Vocab, positions: c.Context, c: c.DModel, rows: g.prefix.Rows(), wrt: -1}
	return G.ApplyOp(op, wte, wpe, g.Tokens, g.Positions)
}

// attend is the causal self-attention of a block: the engine's, for a
// prefix graph the prompts' and their answers', or at the listed rows of
// a head-rows graph (atRows; head_rows_attention.go).
func (g *Graph) attend(qkv *G.Node, atRows bool) (*G.Node, error) {
	c := g.Model.Config
	if atRows {
		return G.ApplyOp(&rowsAttentionOp{a: rowsAttention{batch: g.Batch, seqLen: g.SeqLen, c: c.DModel, heads: c.Heads, capacity: g.head.capacity}, hr: g.head}, qkv)
	}
	if g.prefix == nil {
		return engine.CausalSelfAttention(qkv, g.Batch, g.SeqLen, c.Heads)
	}
	return G.ApplyOp(&prefixAttentionOp{a: prefixAttention{sh: *g.prefix, c: c.DModel, heads: c.Heads}, lens: g.lens}, qkv)
}

// outputRows is the trunk's rows the heads read: all of them, or for a
// prefix graph the answer rows.
func (g *Graph) outputRows(x *G.Node) (*G.Node, error) {
	if g.prefix == nil {
		return x, nil
	}
	s := g.prefix
	return G.ApplyOp(&tailRowsOp{n: s.Rows(), from: s.promptRows(), c: g.Model.Config.DModel}, x)
}
