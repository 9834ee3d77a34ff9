package model

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// headRows is the row list of a head-rows graph (NewHeadRowsGraph), read
// by its ops at every run: the listed rows of the B·T trunk, strictly
// increasing, at most capacity of them. The ops hold a pointer to this
// struct, never to the Graph (see Graph.Close).
type headRows struct {
	capacity int
	rows     []int32
}

// NewHeadRowsGraph builds a training graph whose last block computes its
// queries, attention output, projection, MLP, and the final LayerNorm and
// heads, only at the rows listed by SetHeadRows (at most capacity of them,
// 1 ≤ capacity ≤ batch·seqLen); the earlier blocks, and the last block's
// LayerNorm and QKV product (the keys and values every listed row attends
// to), run at every row. Before the first SetHeadRows no row is listed.
//
// Inputs and outputs keep the plain graph's layout: SetInputs and
// SetLogitBias take (B·T) targets and a (B·T, V) bias, and Logp, Entropy
// and Values are (B·T) with the listed rows' values in place and 0 at
// every other row, whose gradient is dropped. So a loss built on a plain
// graph's outputs builds on these unchanged, and computes the plain
// graph's loss and gradients to float32 rounding as long as it reads only
// listed rows (TestHeadRowsGraphMatchesPlainGraph). Logits is (capacity,
// V): row k holds the logits of the k-th listed row.
//
// Capacity is fixed: every matrix product after the attention runs on
// capacity rows, the unused ones on a zero trunk row (their attention
// output is 0) whose outputs are dropped and whose gradient is 0, so
// they cost time but change nothing: the outputs and gradients are
// bitwise those of a graph without unused capacity
// (TestHeadRowsGraphUnusedCapacity).
func (m *Model) NewHeadRowsGraph(batch, seqLen, capacity int, masked bool) (*Graph, error) {
	if masked && !m.Config.LMHead {
		return nil, fmt.Errorf("head-rows graph: a masked graph needs an LM head")
	}
	if batch < 1 || seqLen < 1 || capacity < 1 || capacity > batch*seqLen {
		return nil, fmt.Errorf("head-rows graph: need batch, seqLen ≥ 1 and 1 ≤ capacity ≤ batch·seqLen, got %d, %d, %d", batch, seqLen, capacity)
	}
	return m.newGraphWith(batch, seqLen, masked, &headRows{capacity: capacity, rows: make([]int32, 0, capacity)})
}

// SetHeadRows lists the rows (i = b·T + t of the B·T trunk) at which a
// head-rows graph computes its outputs: strictly increasing, each in
// [0, B·T), at most the graph's capacity. On error nothing is changed.
func (g *Graph) SetHeadRows(rows []int32) error {
	h := g.head
	if h == nil {
		return fmt.Errorf("set head rows: not a head-rows graph (NewHeadRowsGraph)")
	}
	if len(rows) > h.capacity {
		return fmt.Errorf("set head rows: %d rows, capacity %d", len(rows), h.capacity)
	}
	n := g.Batch * g.SeqLen
	for i, r := range rows {
		if r < 0 || int(r) >= n {
			return fmt.Errorf("set head rows: row %d at index %d is outside [0, %d)", r, i, n)
		}
		if i > 0 && r <= rows[i-1] {
			return fmt.Errorf("set head rows: row %d at index %d does not follow %d (rows must be strictly increasing)", r, i, rows[i-1])
		}
	}
	h.rows = append(h.rows[:0], rows...)
	return nil
}

// HeadCapacity is a head-rows graph's capacity, 0 for any other graph.
func (g *Graph) HeadCapacity() int {
	if g.head == nil {
		return 0
	}
	return g.head.capacity
}

// gatherRows is x's listed rows, (B·T[, C]) → (capacity[, C]), zero in
// the unused capacity; float32 (differentiable) or int32 (the targets).
func (g *Graph) gatherRows(x *G.Node) (*G.Node, error) {
	return G.ApplyOp(newRowsOp(g.head, g.Batch*g.SeqLen, x.Shape(), false), x)
}

// scatterRows is the inverse layout, (capacity[, C]) → (B·T[, C]): the
// listed rows in place, 0 elsewhere.
func (g *Graph) scatterRows(y *G.Node) (*G.Node, error) {
	return G.ApplyOp(newRowsOp(g.head, g.Batch*g.SeqLen, y.Shape(), true), y)
}

// headInputs are the inputs the heads read, at the listed rows for a
// head-rows graph: the targets and the logit bias (nil when absent).
func (g *Graph) headInputs() (targets, bias *G.Node, err error) {
	targets, bias = g.Targets, g.LogitBias
	if g.head == nil {
		return targets, bias, nil
	}
	if targets != nil {
		if targets, err = g.gatherRows(targets); err != nil {
			return nil, nil, err
		}
	}
	if bias != nil {
		if bias, err = g.gatherRows(bias); err != nil {
			return nil, nil, err
		}
	}
	return targets, bias, nil
}

// headOutput is an (R) output of the heads in the plain graph's (B·T)
// layout.
func (g *Graph) headOutput(y *G.Node) (*G.Node, error) {
	if g.head == nil {
		return y, nil
	}
	return g.scatterRows(y)
}
