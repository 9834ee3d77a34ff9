package flodial

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/internal/diagnosis/diagnosistest"
	"arew/tasks/taskstest"
)

func TestConfig(t *testing.T) {
	for _, name := range []string{"flodial-easy", "flodial-hard"} {
		task, err := tasks.New(name, nil)
		require.NoError(t, err)
		assert.Equal(t, name, task.Name())
		assert.LessOrEqual(t, task.MaxTokens(), 256)
		assert.LessOrEqual(t, task.Vocab().Size(), 100)
	}
	hard, err := tasks.New("flodial-hard", json.RawMessage(`{"Critiques": "consistent", "Faults": 5}`))
	require.NoError(t, err)
	assert.Equal(t, 5, hard.(*Task).Config().Faults)
	assert.Equal(t, "consistent", hard.(*Task).Config().Critiques)
	for _, bad := range []string{
		`{"Faults": 1}`, `{"Faults": 17}`, `{"Questions": 0}`, `{"Rounds": 0}`,
		`{"PUseless": -0.1}`, `{"PUseless": 0.8, "PNarrow": 0.3}`, `{"PUnknown": 1}`,
		`{"PUnknown": NaN}`, `{"Levels": 1}`, `{"Critiques": "paper"}`, `{"Faultz": 3}`,
	} {
		_, err := tasks.New("flodial-easy", json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

func TestTableShape(t *testing.T) {
	task, err := New("easy", EasyConfig())
	require.NoError(t, err)
	k := task.cfg.Faults
	var kinds [3]int
	var truths = make([]int, k)
	unkCells, infCells := 0, 0
	for i := range 500 {
		inst, err := task.instance(tasks.Train, i)
		require.NoError(t, err)
		truths[inst.truth]++
		for q, col := range inst.cells {
			kinds[inst.kinds[q]]++
			yesN, unkN := 0, 0
			for _, a := range col {
				yesN += b2i(a == yes)
				unkN += b2i(a == unk)
			}
			switch inst.kinds[q] {
			case useless:
				assert.Equal(t, 0, yesN+unkN, "a useless column is all NO")
			case narrow:
				assert.LessOrEqual(t, yesN, 1)
			case balanced:
				assert.LessOrEqual(t, yesN, k/2)
			}
			if inst.kinds[q] != useless {
				unkCells += unkN
				infCells += k
			}
		}
	}
	n := float64(500 * task.cfg.Questions)
	assert.InDelta(t, 0.5, float64(kinds[useless])/n, 0.03)
	assert.InDelta(t, 0.25, float64(kinds[narrow])/n, 0.03)
	assert.InDelta(t, 0.1, float64(unkCells)/float64(infCells), 0.02)
	for _, c := range truths {
		assert.InDelta(t, 500.0/float64(k), float64(c), 30, "the truth is uniform")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDeterminismAndSplits(t *testing.T) {
	task, err := New("easy", EasyConfig())
	require.NoError(t, err)
	weak := tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5}
	play := func(split tasks.Split, i int) []tasks.Token { return taskstest.Stream(t, task, weak, split, i, 7) }
	assert.Equal(t, play(tasks.Test, 3), play(tasks.Test, 3))
	assert.NotEqual(t, play(tasks.Test, 3), play(tasks.Test, 4))

	train := map[string]bool{}
	for i := range 300 {
		ep, err := task.NewEpisode(tasks.Train, i)
		require.NoError(t, err)
		train[task.vocab.Decode(ep.Prompt())] = true
	}
	for i := range 300 {
		ep, err := task.NewEpisode(tasks.Test, i)
		require.NoError(t, err)
		assert.False(t, train[task.vocab.Decode(ep.Prompt())], "test instance %d is a train one", i)
	}
	_, err = task.NewEpisode(tasks.Test, -1)
	assert.Error(t, err)
}

// The episode's exact posterior against brute-force enumeration of the joint
// distribution of (fault, replies) on tiny random tables.
func TestBayesAgainstBruteForce(t *testing.T) {
	cfg := EasyConfig()
	cfg.Faults, cfg.Questions, cfg.Rounds, cfg.PUnknown = 4, 4, 3, 0.3
	task, err := New("tiny", cfg)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 200 {
		inst, err := task.instance(tasks.Train, i)
		require.NoError(t, err)
		e := newEpisode(task, inst)
		var qs, replies []int
		for !e.Done() {
			if e.Next().Kind == tasks.BT {
				_, _, err := e.Step(task.levels.Encode([]int{1, 1, 1, 1}))
				require.NoError(t, err)
				continue
			}
			q := rng.IntN(cfg.Questions)
			_, _, err := e.Step([]tasks.Token{task.q0 + tasks.Token(q)})
			require.NoError(t, err)
			if !slices.Contains(qs, q) {
				qs = append(qs, q)
				replies = append(replies, inst.cells[q][inst.truth])
			}
		}
		// Joint P(f, r_1..r_n) = 1/K · Π 1[cell = r_j], summed over every
		// reply sequence; then condition on the observed one.
		joint := map[[5]int]float64{}
		var seq [5]int
		var walk func(f, j int)
		walk = func(f, j int) {
			if j == len(qs) {
				seq[4] = f
				joint[seq] += 1 / float64(cfg.Faults)
				return
			}
			for r := yes; r <= unk; r++ {
				if inst.cells[qs[j]][f] == r {
					seq[j] = r
					walk(f, j+1)
				}
			}
			seq[j] = 0
		}
		for f := range cfg.Faults {
			walk(f, 0)
		}
		var obs [5]int
		copy(obs[:], replies)
		z := 0.0
		brute := make([]float64, cfg.Faults)
		for f := range cfg.Faults {
			key := obs
			key[4] = f
			brute[f] = joint[key]
			z += brute[f]
		}
		require.Greater(t, z, 0.0)
		sum := 0.0
		for f := range brute {
			brute[f] /= z
			sum += e.post[f]
			assert.InDelta(t, brute[f], e.post[f], 1e-12, "instance %d fault %d", i, f)
		}
		assert.InDelta(t, 1, sum, 1e-12)
		assert.Greater(t, e.post[inst.truth], 0.0, "the truth is never ruled out")
		assert.InDelta(t, e.post[inst.truth]-0.25, e.Measures().IAS, 1e-12)
	}
}

// Every episode stays within MaxTokens when each turn respects
// Turn.MaxTokens, and ends after 2·Rounds turns (diagnosistest.TokenBudget).
func TestTokenBudget(t *testing.T) {
	for _, cfg := range []Config{EasyConfig(), HardConfig()} {
		task, err := New("budget", cfg)
		require.NoError(t, err)
		diagnosistest.TokenBudget(t, task, task.promptLen(), 2*cfg.Rounds)
	}
}

func TestPolicies(t *testing.T) {
	task, err := New("easy", EasyConfig())
	require.NoError(t, err)
	eval := func(spec tasks.PolicySpec) tasks.Summary {
		return diagnosistest.Evaluate(t, task, spec, 300, 2*task.cfg.Rounds)
	}
	random := eval(tasks.PolicySpec{Kind: "random"})
	weak := eval(tasks.PolicySpec{Kind: "weak", QAS: 0.1, QBT: 0.1})
	strong := eval(tasks.PolicySpec{Kind: "strong"})
	constant := eval(tasks.PolicySpec{Kind: "constant"})
	assert.Greater(t, strong.Success, 0.85)
	assert.Less(t, random.Success, 0.3)
	assert.Less(t, constant.Success, 0.3)
	assert.Less(t, weak.Success, 0.35)
	assert.Greater(t, strong.ASProxy, 2*weak.ASProxy)
	assert.Greater(t, strong.BTProxy, 5*weak.BTProxy)
	assert.Greater(t, strong.IAS, 2*weak.IAS)
	assert.Greater(t, strong.Evidence, 0.85)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 2})
	assert.Error(t, err)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "oracle"})
	assert.Error(t, err)

	ans, succ, err := task.BestConstant(tasks.Test, 600)
	require.NoError(t, err)
	assert.Contains(t, ans, "fault")
	assert.InDelta(t, 1.0/6, succ, 0.06)
	_, _, err = task.BestConstant(tasks.Test, 0)
	assert.Error(t, err)
}

// The consistent-set critiques separate the policies on AS, and the strong
// policy's stated beliefs never leave C.
func TestConsistentProxies(t *testing.T) {
	cfg := HardConfig()
	cfg.Critiques = "consistent"
	task, err := New("hard-consistent", cfg)
	require.NoError(t, err)
	for _, spec := range []tasks.PolicySpec{{Kind: "strong"}, {Kind: "weak", QAS: 0.1, QBT: 0.1}} {
		pol, err := task.Scripted(spec)
		require.NoError(t, err)
		neg, pos := 0, 0
		for i := range 100 {
			ep, err := task.NewEpisode(tasks.Test, i)
			require.NoError(t, err)
			_, err = tasks.Play(ep, pol, rand.New(rand.NewPCG(2, uint64(i))), 2*cfg.Rounds)
			require.NoError(t, err)
			for _, s := range ep.Steps() {
				if s.Kind == tasks.BT && s.Z < 0 {
					neg++
				}
				if s.Kind == tasks.AS && s.Z > 0 {
					pos++
				}
			}
		}
		if spec.Kind == "strong" {
			assert.Zero(t, neg, "Bayes beliefs are always consistent")
			assert.Greater(t, pos, 150)
		} else {
			assert.Less(t, pos, 80)
		}
	}
}

func TestPolicyErrors(t *testing.T) {
	a, err := New("a", EasyConfig())
	require.NoError(t, err)
	b, err := New("b", EasyConfig())
	require.NoError(t, err)
	diagnosistest.PolicyErrors(t, a, b, tasks.PolicySpec{Kind: "strong"}, 10)
}
