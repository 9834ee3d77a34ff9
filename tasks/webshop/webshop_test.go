package webshop

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

func store(t testing.TB) *World {
	w, err := New(DefaultConfig())
	require.NoError(t, err)
	return w
}

var splits = []textworld.Split{textworld.Train, textworld.Test, textworld.Val}

func stateKey(env textworld.Env) string {
	e := env.(*Env)
	return fmt.Sprintf("%v|%v|%v|%d|%d|%s|%s|%v|%v", e.page, e.query, e.results, e.pageNo, e.item, e.colour, e.size, e.bought, e.reward)
}

// TestExpertSolvesEverySplit: reward 1 on every instruction of both
// splits (textworldtest.ExpertSolves).
func TestExpertSolvesEverySplit(t *testing.T) {
	w := store(t)
	for _, split := range splits {
		textworldtest.ExpertSolves(t, w, split, w.cfg.Sizes().Size(split))
	}
}

// TestInapplicableChangesNothing: what is not admissible gets "nothing
// happens ." and leaves the page, query, selection and reward unchanged
// (textworldtest.InapplicableChangesNothing; an unlisted search applies).
func TestInapplicableChangesNothing(t *testing.T) {
	w := store(t)
	rng := rand.New(rand.NewPCG(3, 4))
	checked := textworldtest.InapplicableChangesNothing(t, w, 100, false, func(env textworld.Env, adm [][]tasks.Token) []tasks.Token {
		a := slices.Clone(adm[rng.IntN(len(adm))])
		switch rng.IntN(3) {
		case 1:
			a[rng.IntN(len(a))] = tasks.Token(3 + rng.IntN(w.vocab.Size()-3))
		case 2:
			a = env.Expert()
		}
		return a
	}, stateKey)
	assert.Greater(t, checked, 100)
}

// TestAnySearchApplies: on the search page every well-formed search is
// admissible, listed or not; elsewhere none is.
func TestAnySearchApplies(t *testing.T) {
	w := store(t)
	e, err := w.NewEnv(textworld.Test, 0)
	require.NoError(t, err)
	free := w.vocab.Encode("search", "[", "red", "the", "mug", "]")
	assert.False(t, textworld.Contains(e.Admissible(), free))
	assert.True(t, e.IsAdmissible(free))
	_, _ = e.Step(free)
	assert.Equal(t, ResultsPage, e.page)
	assert.Equal(t, w.search([]string{"red", "mug"}), e.results, "words no product has do not count")
	assert.False(t, e.IsAdmissible(free))
}

func TestDeterminismAndSplits(t *testing.T) {
	a, b := store(t), store(t)
	require.Equal(t, a.catalogue, b.catalogue)
	owner := map[string]textworld.Split{} // no instruction in two splits
	for _, split := range splits {
		for i := 0; i < a.cfg.Sizes().Size(split); i++ {
			x, err := a.Instruction(split, i)
			require.NoError(t, err)
			y, err := b.Instruction(split, i)
			require.NoError(t, err)
			require.Equal(t, x, y)
			require.True(t, satisfies(x, a.catalogue[x.Target]))
			if s, dup := owner[x.key()]; dup {
				assert.Equal(t, split, s, "%v instruction %d is a %v one", split, i, s)
			}
			owner[x.key()] = split
		}
	}
	other, err := New(Config{Seed: 13, PerCategory: 30, Train: 600, Test: 200, MaxSteps: 15})
	require.NoError(t, err)
	assert.NotEqual(t, a.catalogue, other.catalogue)
	e, _ := a.NewEnv(textworld.Test, 5)
	f, _ := b.NewEnv(textworld.Test, 5)
	for !e.Done() {
		require.Equal(t, e.Observation(), f.Observation())
		require.Equal(t, e.Admissible(), f.Admissible())
		_, _ = e.Step(e.Expert())
		_, _ = f.Step(f.Expert())
	}
	c := e.Clone()
	assert.Equal(t, e.Reward(), c.Reward())
}

// TestReward checks the formula on hand-made cases.
func TestReward(t *testing.T) {
	in := Instruction{Category: "mug", Attrs: []string{"ceramic", "large"}, Colour: "red", Size: "small", Bound: 30}
	p := Product{Category: "mug", Attrs: []string{"ceramic", "large", "travel"}, Colours: []string{"red", "blue"}, Sizes: []string{"small", "medium"}, Price: 25}
	for _, tc := range []struct {
		name         string
		mod          func(Product) Product
		colour, size string
		want         float64
	}{
		{"all match", nil, "red", "small", 1},
		{"no options chosen", nil, "", "", 3.0 / 5},
		{"wrong colour", nil, "blue", "small", 4.0 / 5},
		{"one attribute", func(p Product) Product { p.Attrs = []string{"ceramic", "travel", "handmade"}; return p }, "red", "small", 4.0 / 5},
		{"over budget", func(p Product) Product { p.Price = 31; return p }, "red", "small", 4.0 / 5},
		{"at the bound", func(p Product) Product { p.Price = 30; return p }, "red", "small", 1},
		{"wrong type", func(p Product) Product { p.Category = "shirt"; return p }, "red", "small", 0},
		{"nothing but type", func(p Product) Product { p.Attrs = []string{"x", "y", "z"}; p.Price = 99; return p }, "", "", 0},
	} {
		q := p
		if tc.mod != nil {
			q = tc.mod(slicesCopy(p))
		}
		assert.InDelta(t, tc.want, Reward(in, q, tc.colour, tc.size), 1e-12, tc.name)
	}
}

func slicesCopy(p Product) Product {
	p.Attrs = slices.Clone(p.Attrs)
	return p
}

func TestConfigErrors(t *testing.T) {
	for _, raw := range []string{`{"Train":0}`, `{"PerCategory":0}`, `{"PerCategory":500}`, `{"MaxSteps":0}`, `{"Nope":1}`} {
		_, err := FromJSON([]byte(raw))
		assert.Error(t, err, raw)
	}
	w, err := FromJSON([]byte(`{"Train":5,"Test":5}`))
	require.NoError(t, err)
	_, err = w.NewEnv(textworld.TestOOD, 0)
	assert.Error(t, err, "webshop has no OOD split")
	_, err = w.NewEnv(textworld.Test, 5)
	assert.Error(t, err)
}

// TestTrainAndTestInstructionsAreStable pins every train and test
// instruction of the default store (textworldtest.SplitsDigest).
func TestTrainAndTestInstructionsAreStable(t *testing.T) {
	w := store(t)
	got := textworldtest.SplitsDigest(t, w.cfg.Sizes(), []textworld.Split{textworld.Train, textworld.Test},
		func(s textworld.Split, i int) (string, error) {
			in, err := w.Instruction(s, i)
			return fmt.Sprintf("%+v", in), err
		})
	assert.Equal(t, "2c7d4655599bd50f23149318caf8f6db3a1bc378e0382fd53097db24034ae474", got)
}
