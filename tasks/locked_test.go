package tasks

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeld(t *testing.T) {
	f := LevelFormat{First: 10, Levels: 4}
	assert.Equal(t, []int{3, 3, 3}, f.Held(nil, 3, false), "flat before the first belief")
	assert.Equal(t, []int{3, 2, 2}, f.Held(nil, 3, true), "a unique top on the first")
	stated := []int{0, 2, 2, 1}
	assert.Equal(t, stated, f.Held(stated, 4, false))
	assert.Equal(t, []int{0, 3, 2, 1}, f.Held(stated, 4, true))
	assert.Equal(t, []int{0, 2, 2, 1}, stated, "the stated levels are not written")
}

// fakeMoves records which move the locked demonstrator chose.
type fakeMoves struct {
	Rounds
}

func (fakeMoves) StrongQuery(*rand.Rand) []Token       { return []Token{10} }
func (fakeMoves) LockedQuery(*rand.Rand) []Token       { return []Token{11} }
func (fakeMoves) BayesBelief(bool, *rand.Rand) []Token { return []Token{20} }
func (fakeMoves) HeldBelief(final bool) []Token        { return []Token{21} }
func (m *fakeMoves) Step(a []Token) ([]Token, Step, error) {
	return m.Play("fake", a, func([]Token) ([]Token, Step) { return nil, Step{} }, func([]Token) ([]Token, Step) { return nil, Step{} })
}
func (*fakeMoves) Prompt() []Token    { return []Token{BOS} }
func (m *fakeMoves) Next() Turn       { return m.Rounds.Next(2, 2) }
func (*fakeMoves) Measures() Measures { return Measures{} }

// With q = 0 the demonstrator always takes the locked moves, with q = 1
// always the strong ones, and in between about q of the time; it refuses
// another kind, knobs outside [0, 1], an episode the task's moves refuse,
// and an episode that is over.
func TestNewLocked(t *testing.T) {
	share := func(q float64) (as, bt float64) {
		p, err := NewLocked(PolicySpec{Kind: "locked", QAS: q, QBT: q}, func(ep Episode) (LockedMoves, error) { return ep.(*fakeMoves), nil })
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 2000
		strongAS, bayesBT := 0, 0
		for range n {
			ep := &fakeMoves{NewRounds(1)}
			a, err := p.Act(ep, rng)
			require.NoError(t, err)
			if a[0] == 10 {
				strongAS++
			}
			_, _, _ = ep.Step(a)
			b, err := p.Act(ep, rng)
			require.NoError(t, err)
			if b[0] == 20 {
				bayesBT++
			}
			_, _, _ = ep.Step(b)
			_, err = p.Act(ep, rng)
			require.ErrorContains(t, err, "over")
		}
		return float64(strongAS) / n, float64(bayesBT) / n
	}
	as, bt := share(0)
	assert.Equal(t, []float64{0, 0}, []float64{as, bt})
	as, bt = share(1)
	assert.Equal(t, []float64{1, 1}, []float64{as, bt})
	as, bt = share(0.25)
	assert.InDelta(t, 0.25, as, 0.03)
	assert.InDelta(t, 0.25, bt, 0.03)

	p, err := NewLocked(PolicySpec{Kind: "locked", QAS: 0.03, QBT: 0.02}, nil)
	require.NoError(t, err)
	assert.Equal(t, "locked(0.03,0.02)", p.Name())
	_, err = NewLocked(PolicySpec{Kind: "weak"}, nil)
	assert.Error(t, err)
	_, err = NewLocked(PolicySpec{Kind: "locked", QAS: 2}, nil)
	assert.Error(t, err)
	p, err = NewLocked(PolicySpec{Kind: "locked"}, func(Episode) (LockedMoves, error) { return nil, assert.AnError })
	require.NoError(t, err)
	_, err = p.Act(&fakeMoves{NewRounds(1)}, rand.New(rand.NewPCG(1, 2)))
	assert.ErrorIs(t, err, assert.AnError)
}

func TestStyleHelpers(t *testing.T) {
	assert.NoError(t, CheckStyle(""))
	assert.NoError(t, CheckStyle(Hasty))
	assert.ErrorContains(t, CheckStyle("sloppy"), `"sloppy"`)
	v := NewVocab(StyleGroups(Careful, []string{"a"})...)
	assert.Equal(t, []string{"<pad>", "<bos>", "<eot>", "a", "<careful>", "<hasty>"}, v.Words())
	assert.Equal(t, Token(5), StyleToken(v, Hasty))
	assert.Equal(t, Token(0), StyleToken(v, ""))
	assert.Len(t, StyleGroups("", []string{"a"}), 1)
	assert.Equal(t, []Token{BOS, 4}, AppendStart(nil, 4))
	assert.Equal(t, []Token{BOS}, AppendStart(nil, 0))
	assert.Equal(t, 1, StyleLen(Careful))
	assert.Equal(t, 0, StyleLen(""))
}
