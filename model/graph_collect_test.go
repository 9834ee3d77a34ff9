package model

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A closed graph is garbage: nothing the program reaches may point back at
// the Graph or its machines. gorgonia's tape machine carries a finalizer,
// and Go never frees a cycle through an object with a finalizer, so one
// such pointer (an op holding &g.someField, say) keeps every graph ever
// built, and a long study grows by its graphs' buffers per run. Each kind
// of graph is built, compiled with a loss, run forward and backward and
// closed; its expression graph must then be collected.
func TestClosedGraphsAreCollected(t *testing.T) {
	const V, ctx = 13, 24
	m := newRandomModel(t, tinyConfig(t, V, ctx, true, true), 7, 0.3)
	s := PrefixShape{Groups: 2, Prompt: 6, Answers: 3, AnswerLen: 4}
	kinds := map[string]func() (*Graph, error){
		"plain":         func() (*Graph, error) { return m.NewGraph(4, 8) },
		"masked":        func() (*Graph, error) { return m.NewMaskedGraph(4, 8) },
		"prefix":        func() (*Graph, error) { return m.NewPrefixGraph(s, false) },
		"prefix masked": func() (*Graph, error) { return m.NewPrefixGraph(s, true) },
		"head rows":     func() (*Graph, error) { return m.NewHeadRowsGraph(4, 8, 10, true) },
	}
	for name, build := range kinds {
		var collected atomic.Bool
		func() {
			g, err := build()
			require.NoError(t, err, name)
			if g.prefix != nil {
				positions, lens := make([]int32, s.Rows()), make([]int32, s.Groups)
				for p := range s.Groups {
					lens[p] = int32(s.Prompt)
					for i := range s.Prompt {
						positions[p*s.Prompt+i] = int32(i)
					}
				}
				for a := range s.Groups * s.Answers {
					for j := range s.AnswerLen {
						positions[s.Groups*s.Prompt+a*s.AnswerLen+j] = int32(s.Prompt + j)
					}
				}
				require.NoError(t, g.SetPrefixInputs(make([]int32, s.Rows()), positions, lens, make([]int32, g.Batch*g.SeqLen)), name)
			} else {
				require.NoError(t, g.SetInputs(make([]int32, g.Batch*g.SeqLen), make([]int32, g.Batch*g.SeqLen)), name)
			}
			if g.head != nil {
				require.NoError(t, g.SetHeadRows([]int32{0, 3, 9, 17, 30}), name)
			}
			n := g.Batch * g.SeqLen
			loss := testLoss{mask: make([]float32, n), returns: make([]float32, n), valueCoef: 0.5}
			for i := range loss.mask {
				loss.mask[i] = 1
			}
			node, err := loss.build(g)
			require.NoError(t, err, name)
			require.NoError(t, g.Compile(node), name)
			require.NoError(t, g.Run(), name)
			require.NoError(t, g.Forward(), name)
			runtime.AddCleanup(g.G, func(*atomic.Bool) { collected.Store(true) }, &collected)
			g.Close()
		}()
		for range 50 {
			if collected.Load() {
				break
			}
			runtime.GC()
			time.Sleep(2 * time.Millisecond)
		}
		require.True(t, collected.Load(), "%s: a closed graph is never freed (a cycle through gorgonia's tape machine)", name)
	}
}
