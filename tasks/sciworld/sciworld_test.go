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
	"arew/tasks/textworld/textworldtest"
)

func lab(t testing.TB) *World {
	w, err := New(DefaultConfig())
	require.NoError(t, err)
	return w
}

var splits = []textworld.Split{textworld.Train, textworld.Test, textworld.Val}

func stateKey(env textworld.Env) string {
	e := env.(*Env)
	return fmt.Sprintf("%v|%d|%v|%v|%v", e.things, e.room, e.focused, e.failed, e.success)
}

// TestExpertSolvesEverySplit: success on every game of both splits
// (textworldtest.ExpertSolves); all five procedures occur in each split.
func TestExpertSolvesEverySplit(t *testing.T) {
	w := lab(t)
	for _, split := range splits {
		textworldtest.ExpertSolves(t, w, split, w.cfg.Sizes().Size(split))
		procs := map[Procedure]int{}
		for i := 0; i < w.cfg.Sizes().Size(split); i++ {
			in, err := w.Instance(split, i)
			require.NoError(t, err)
			procs[in.Procedure]++
		}
		assert.Len(t, procs, len(Procedures))
		t.Logf("%v: procedures %v", split, procs)
	}
}

// TestInapplicableChangesNothing: what is not admissible gets "nothing
// happens ." and changes nothing (textworldtest.InapplicableChangesNothing).
func TestInapplicableChangesNothing(t *testing.T) {
	w := lab(t)
	rng := rand.New(rand.NewPCG(5, 6))
	checked := textworldtest.InapplicableChangesNothing(t, w, 80, true, func(env textworld.Env, adm [][]tasks.Token) []tasks.Token {
		a := slices.Clone(adm[rng.IntN(len(adm))])
		switch rng.IntN(4) {
		case 1:
			a[rng.IntN(len(a))] = tasks.Token(3 + rng.IntN(w.vocab.Size()-3))
		case 2:
			a = env.Expert()
		case 3:
			a = w.vocab.Encode("focus", "on", env.(*Env).in.Focus) // rarely admissible early on
		}
		return a
	}, stateKey)
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
	owner := map[string]textworld.Split{} // no game in two splits
	for _, split := range splits {
		for i := 0; i < a.cfg.Sizes().Size(split); i++ {
			x, err := a.Instance(split, i)
			require.NoError(t, err)
			y, err := b.Instance(split, i)
			require.NoError(t, err)
			require.Equal(t, x.Fingerprint(), y.Fingerprint())
			if s, dup := owner[x.Fingerprint()]; dup {
				assert.Equal(t, split, s, "%v game %d is a %v game", split, i, s)
			}
			owner[x.Fingerprint()] = split
		}
	}
	da, err := textworld.Dataset(a, textworld.Test, a.cfg.Test, textworld.History)
	require.NoError(t, err)
	db, err := textworld.Dataset(b, textworld.Test, b.cfg.Test, textworld.History)
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

// FuzzFromJSON: any configuration text builds a world or returns an error
// (textworldtest.FuzzFromJSON).
func FuzzFromJSON(f *testing.F) { textworldtest.FuzzFromJSON(f, FromJSON) }

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

// TestTrainAndTestGamesAreStable pins every train and test game of the
// default lab (textworldtest.SplitsDigest).
func TestTrainAndTestGamesAreStable(t *testing.T) {
	w := lab(t)
	got := textworldtest.SplitsDigest(t, w.cfg.Sizes(), []textworld.Split{textworld.Train, textworld.Test}, w.fingerprint)
	assert.Equal(t, "80c44e419ebcbb12dfce40f706e9a81100d7521c86c04fb31b0739e280b4484c", got)
}
