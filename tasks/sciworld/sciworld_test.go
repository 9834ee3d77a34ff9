package sciworld

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

func lab(t testing.TB) *World {
	w, err := New(DefaultConfig())
	require.NoError(t, err)
	return w
}

var splits = []textworld.Split{textworld.Train, textworld.Test}

func splitSize(w *World, s textworld.Split) int {
	if s == textworld.Train {
		return w.cfg.Train
	}
	return w.cfg.Test
}

func stateKey(e *Env) string {
	return fmt.Sprintf("%v|%d|%v|%v|%v", e.things, e.room, e.focused, e.failed, e.success)
}

// TestExpertSolvesEverySplit: success on every game of both splits, every
// expert action admissible; all five procedures occur in each split.
func TestExpertSolvesEverySplit(t *testing.T) {
	w := lab(t)
	for _, split := range splits {
		procs := map[Procedure]int{}
		steps := 0
		for i := 0; i < splitSize(w, split); i++ {
			e, err := w.NewEnv(split, i)
			require.NoError(t, err)
			procs[e.in.Procedure]++
			for !e.Done() {
				a := e.Expert()
				require.True(t, textworld.Contains(e.Admissible(), a), "%v %d: %q", split, i, textworld.Decode(w.vocab, a))
				_, err := e.Step(a)
				require.NoError(t, err)
			}
			require.True(t, e.Success(), "%v %d (%v)", split, i, e.in.Procedure)
			steps += e.Steps()
		}
		assert.Len(t, procs, len(Procedures))
		t.Logf("%v: mean expert length %.2f, procedures %v", split, float64(steps)/float64(splitSize(w, split)), procs)
	}
}

// TestInapplicableChangesNothing: what is not admissible gets "nothing
// happens ." and changes nothing; IsAdmissible agrees with the list.
func TestInapplicableChangesNothing(t *testing.T) {
	w := lab(t)
	rng := rand.New(rand.NewPCG(5, 6))
	nothing := w.vocab.Encode(textworld.NothingHappens...)
	checked := 0
	for i := 0; i < 80; i++ {
		e, err := w.NewEnv(textworld.Train, i)
		require.NoError(t, err)
		for !e.Done() {
			adm := e.Admissible()
			a := slices.Clone(adm[rng.IntN(len(adm))])
			switch rng.IntN(4) {
			case 1:
				a[rng.IntN(len(a))] = tasks.Token(3 + rng.IntN(w.vocab.Size()-3))
			case 2:
				a = e.Expert()
			case 3:
				a = w.vocab.Encode("focus", "on", e.in.Focus) // rarely admissible early on
			}
			listed := textworld.Contains(adm, a)
			require.Equal(t, listed, e.IsAdmissible(a), "%q", textworld.Decode(w.vocab, a))
			before := stateKey(e)
			obs, err := e.Step(a)
			require.NoError(t, err)
			if listed {
				assert.NotEqual(t, nothing, obs)
			} else {
				checked++
				assert.Equal(t, nothing, obs)
				assert.Equal(t, before, stateKey(e))
			}
		}
		assert.LessOrEqual(t, e.Steps(), w.cfg.MaxSteps)
		_, err = e.Step(nil)
		assert.Error(t, err)
	}
	assert.Greater(t, checked, 100)
}

func TestFocusOnTheWrongThingFails(t *testing.T) {
	w := lab(t)
	e, err := w.NewEnv(textworld.Test, 0)
	require.NoError(t, err)
	var wrong []tasks.Token
	for _, c := range e.AdmissibleCommands() {
		if c.Verb == FocusOn && c.X != e.in.Focus {
			wrong = w.vocab.Encode(c.Words()...)
			break
		}
	}
	require.NotNil(t, wrong)
	_, err = e.Step(wrong)
	require.NoError(t, err)
	assert.True(t, e.Done())
	assert.False(t, e.Success())
}

func TestDeterminismAndSplits(t *testing.T) {
	a, b := lab(t), lab(t)
	seen := map[string]bool{}
	for _, split := range splits {
		for i := 0; i < splitSize(a, split); i++ {
			x, err := a.Instance(split, i)
			require.NoError(t, err)
			y, err := b.Instance(split, i)
			require.NoError(t, err)
			require.Equal(t, x.Fingerprint(), y.Fingerprint())
			if split == textworld.Train {
				seen[x.Fingerprint()] = true
			} else {
				assert.False(t, seen[x.Fingerprint()], "test game %d is a training game", i)
			}
		}
	}
	da, err := a.Dataset(textworld.Test, textworld.History)
	require.NoError(t, err)
	db, err := b.Dataset(textworld.Test, textworld.History)
	require.NoError(t, err)
	require.Equal(t, da, db)
	e, _ := a.NewEnv(textworld.Test, 1)
	c := e.Clone()
	before := stateKey(e)
	for !c.Done() {
		_, _ = c.Step(c.Expert())
	}
	assert.True(t, c.Success())
	assert.Equal(t, before, stateKey(e))
}

func TestConfigErrors(t *testing.T) {
	for _, raw := range []string{`{"Train":0}`, `{"Test":0}`, `{"MaxSteps":0}`, `{"Nope":1}`, `{"Train":200001}`} {
		_, err := FromJSON([]byte(raw))
		assert.Error(t, err, raw)
	}
	w, err := FromJSON([]byte(`{"Train":3,"Test":3}`))
	require.NoError(t, err)
	_, err = w.NewEnv(textworld.TestOOD, 0)
	assert.Error(t, err)
	_, err = w.NewEnv(textworld.Train, 3)
	assert.Error(t, err)
}
