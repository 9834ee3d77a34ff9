package alfworld

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

func world(t testing.TB) *World {
	w, err := New(DefaultConfig())
	require.NoError(t, err)
	return w
}

var splits = []textworld.Split{textworld.Train, textworld.Test, textworld.TestOOD, textworld.Val}

// stateKey is everything Step may change except the step count and the
// observation.
func stateKey(env textworld.Env) string {
	e := env.(*Env)
	return fmt.Sprintf("%v|%v|%d|%d|%v", e.recs, e.objs, e.at, e.held, e.success)
}

// TestExpertSolvesEverySplit plays the planner on every instance of the
// three splits (textworldtest.ExpertSolves).
func TestExpertSolvesEverySplit(t *testing.T) {
	w := world(t)
	for _, split := range splits {
		textworldtest.ExpertSolves(t, w, split, w.cfg.Sizes().Size(split))
	}
}

// randomCommand is a listed command, a listed command with one word
// replaced, or random words: most of the latter two do not apply.
func randomCommand(e textworld.Env, adm [][]tasks.Token, rng *rand.Rand) []tasks.Token {
	a := append([]tasks.Token(nil), adm[rng.IntN(len(adm))]...)
	switch rng.IntN(3) {
	case 1:
		a[rng.IntN(len(a))] = tasks.Token(3 + rng.IntN(e.Vocab().Size()-3))
	case 2:
		a = a[:0]
		for k := rng.IntN(7); k >= 0; k-- {
			a = append(a, tasks.Token(rng.IntN(e.Vocab().Size()+2)-1))
		}
	}
	return a
}

// TestInapplicableChangesNothing: a command outside the admissible list is
// answered "nothing happens ." and leaves the state as it was; a listed one
// never is (textworldtest.InapplicableChangesNothing).
func TestInapplicableChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked := textworldtest.InapplicableChangesNothing(t, world(t), 60, true, func(e textworld.Env, adm [][]tasks.Token) []tasks.Token {
		return randomCommand(e, adm, rng)
	}, stateKey)
	assert.Greater(t, checked, 500)
}

// TestDeterminism: the same instance twice gives the same goal,
// observations, admissible lists and expert actions; worlds built from the
// same config agree.
func TestDeterminism(t *testing.T) {
	a, b := world(t), world(t)
	for _, split := range splits {
		for i := 0; i < 20; i++ {
			x, err := a.NewEnv(split, i)
			require.NoError(t, err)
			y, err := b.NewEnv(split, i)
			require.NoError(t, err)
			require.Equal(t, x.in.Fingerprint(), y.in.Fingerprint())
			require.Equal(t, x.Goal(), y.Goal())
			for !x.Done() {
				require.Equal(t, x.Observation(), y.Observation())
				require.Equal(t, x.Admissible(), y.Admissible())
				act := x.Expert()
				require.Equal(t, act, y.Expert())
				_, _ = x.Step(act)
				_, _ = y.Step(act)
			}
		}
	}
	other, err := New(Config{Seed: 13, Layouts: 40, Train: 400, Test: 140, TestOOD: 134, MaxSteps: 50})
	require.NoError(t, err)
	x, _ := a.Instance(textworld.Train, 0)
	y, _ := other.Instance(textworld.Train, 0)
	assert.NotEqual(t, x.Fingerprint(), y.Fingerprint(), "the seed must matter")
}

// TestCloneIsIndependent: stepping a clone leaves the original unchanged.
func TestCloneIsIndependent(t *testing.T) {
	w := world(t)
	e, err := w.NewEnv(textworld.Test, 3)
	require.NoError(t, err)
	_, _ = e.Step(e.Expert())
	before := stateKey(e)
	c := e.Clone()
	for !c.Done() {
		_, _ = c.Step(c.Expert())
	}
	assert.True(t, c.Success())
	assert.Equal(t, before, stateKey(e))
	assert.False(t, e.Done())
}

// TestSplitsDisjointAndOOD: no instance is in two splits; every task type
// occurs in every split; the OOD split's layouts are outside the training
// layouts; in its unusual games (Config.Unusual) the targets lie in classes
// where no training game ever puts an object of their type, in the others
// at one of their type's usual classes, and at least half are the others.
func TestSplitsDisjointAndOOD(t *testing.T) {
	w := world(t)
	seen := map[string]textworld.Split{}
	trainLayouts := map[string]bool{}
	trainPlaces := map[string]bool{}
	unusual := 0
	for _, split := range splits {
		types := map[TaskType]int{}
		for i := 0; i < w.cfg.Sizes().Size(split); i++ {
			in, err := w.Instance(split, i)
			require.NoError(t, err)
			fp := in.Fingerprint()
			if s, dup := seen[fp]; dup {
				assert.Equal(t, split, s, "instance %d of %v repeats one of %v", i, split, s)
			}
			seen[fp] = split
			types[in.Task]++
			switch split {
			case textworld.Train:
				trainLayouts[in.Layout.Signature()] = true
				for _, o := range in.Objects {
					trainPlaces[o.Type+"@"+in.Recs[o.Rec].Class] = true
				}
			case textworld.Test, textworld.Val:
				assert.True(t, w.seen[in.Layout.Signature()], "ID test and validation layouts come from the seen pool")
			case textworld.TestOOD:
				assert.False(t, trainLayouts[in.Layout.Signature()], "OOD layout seen in training: %s", in.Layout.Signature())
				if w.cfg.Unusual(i) {
					unusual++
				}
				for _, k := range in.Targets {
					o := in.Objects[k]
					class := in.Recs[o.Rec].Class
					if w.cfg.Unusual(i) {
						assert.False(t, trainPlaces[o.Type+"@"+class], "OOD target %s placed as in training", o.Type)
					} else {
						assert.Contains(t, objectType(o.Type).usual, class, "OOD game %d: target %s not at a usual class", i, o.Type)
					}
				}
			}
		}
		assert.Len(t, types, len(TaskTypes), "%v: every task type occurs", split)
	}
	assert.Equal(t, int(float64(w.cfg.TestOOD)*w.cfg.OODUnusual), unusual, "unusual OOD games")
	assert.LessOrEqual(t, 2*unusual, w.cfg.TestOOD, "at least half the OOD games keep the usual placements")
}

// TestUnusualShare: Unusual marks exactly ⌊n·s⌋ of the first n OOD games,
// for every n; s = 0 marks none, s = 1 every one.
func TestUnusualShare(t *testing.T) {
	for _, s := range []float64{0, 0.25, 0.5, 1.0 / 3, 1} {
		c := Config{OODUnusual: s}
		k := 0
		for n := 1; n <= 200; n++ {
			if c.Unusual(n - 1) {
				k++
			}
			assert.Equal(t, int(math.Floor(float64(n)*s)), k, "share %v, first %d games", s, n)
		}
	}
}

// FuzzFromJSON: any configuration text builds a world or returns an error
// (textworldtest.FuzzFromJSON).
func FuzzFromJSON(f *testing.F) { textworldtest.FuzzFromJSON(f, FromJSON) }

func TestConfigErrors(t *testing.T) {
	for _, raw := range []string{`{"Train":0}`, `{"Layouts":2}`, `{"MaxSteps":0}`, `{"TestOOD":0}`, `{"OODUnusual":-0.1}`, `{"OODUnusual":1.5}`, `{"Bogus":1}`, `[1]`, `{"Train":-5}`} {
		_, err := FromJSON([]byte(raw))
		assert.Error(t, err, raw)
	}
	w, err := FromJSON([]byte(`{"Train":10}`))
	require.NoError(t, err)
	_, err = w.NewEnv(textworld.Train, 10)
	assert.Error(t, err)
	_, err = w.NewEnv(textworld.Test, -1)
	assert.Error(t, err)
}

// TestTrainAndTestGamesAreStable pins every train, test and OOD game of
// the default world (textworldtest.SplitsDigest).
func TestTrainAndTestGamesAreStable(t *testing.T) {
	w := world(t)
	got := textworldtest.SplitsDigest(t, w.cfg.Sizes(), []textworld.Split{textworld.Train, textworld.Test, textworld.TestOOD}, w.fingerprint)
	assert.Equal(t, "ba0cedfdb1d16a99aa3a9586804db64059dff9506fcf5c50befb9b28e480279b", got)
}
