package pe

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// The scripted policies keep their order on a few hundred episodes: strong
// far above random and the best constant; the weak demonstrator with low
// knobs low on both proxies; each knob lifts its own proxy.
func TestPolicyOrdering(t *testing.T) {
	task := newTask(t, fastConfig(t, "pe-g-s2", 512))
	const n = 200
	random := playAll(t, task, tasks.PolicySpec{Kind: "random"}, n)
	strong := playAll(t, task, tasks.PolicySpec{Kind: "strong"}, n)
	weakLow := playAll(t, task, tasks.PolicySpec{Kind: "weak", QAS: 0.1, QBT: 0.1}, n)
	weakAS := playAll(t, task, tasks.PolicySpec{Kind: "weak", QAS: 1, QBT: 0.1}, n)
	weakBT := playAll(t, task, tasks.PolicySpec{Kind: "weak", QAS: 0.1, QBT: 1}, n)
	_, constant, err := task.BestConstant(tasks.Test, n)
	require.NoError(t, err)

	assert.Greater(t, strong.Success, 0.6)
	assert.Less(t, random.Success, 0.1)
	assert.Less(t, constant, 0.2)
	assert.Greater(t, strong.Success, constant+0.4)
	assert.Greater(t, strong.ASProxy, 0.95)
	assert.Greater(t, strong.BTProxy, 0.03)
	assert.Greater(t, strong.IAS, 0.15)
	assert.Greater(t, strong.Evidence, 0.85)

	assert.Less(t, weakLow.ASProxy, 0.3)
	assert.Less(t, weakLow.BTProxy, 0.01)
	assert.Less(t, weakLow.IAS, 0.1)
	assert.Less(t, weakLow.Success, 0.15)
	assert.Greater(t, weakAS.ASProxy, 0.95, "q_as = 1: every query non-dominated")
	assert.Greater(t, weakAS.IAS, weakLow.IAS+0.1)
	assert.Greater(t, weakBT.BTProxy, weakLow.BTProxy+0.005)
	for _, s := range []tasks.Summary{random, strong, weakLow, weakAS, weakBT} {
		assert.Zero(t, s.Malformed)
		assert.Equal(t, float64(task.TurnLimit()), s.Turns)
	}
}

// The weak demonstrator's knobs at their ends: q_bt = 1 states the strong
// policy's belief; q_bt = 0 keeps or drifts the previous one.
func TestWeakKnobs(t *testing.T) {
	task := newTask(t, fastConfig(t, "pe-f-d6", 256))
	follow, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 1, QBT: 1})
	require.NoError(t, err)
	stale, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 1, QBT: 0})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20; i++ {
		e, err := task.newEpisode(tasks.Test, i)
		require.NoError(t, err)
		for !e.Done() {
			if e.Next().Kind == tasks.AS {
				a, err := follow.Act(e, rng)
				require.NoError(t, err)
				qy, err := task.parseQuery(a)
				require.NoError(t, err)
				assert.False(t, dominated(qy, e.inst.table))
				step(t, e, a)
				continue
			}
			want := e.posteriorGuess()
			a, err := follow.Act(e, rng)
			require.NoError(t, err)
			assert.Equal(t, task.EncodeGuess(want), a)
			prev := e.Belief()
			b, err := stale.Act(e, rng)
			require.NoError(t, err)
			got, err := task.parseGuess(b)
			require.NoError(t, err)
			changed := 0
			for k := range got {
				d := got[k] - prev[k]
				assert.LessOrEqual(t, d*d, 1, "a drift moves one level")
				if d != 0 {
					changed++
				}
			}
			assert.LessOrEqual(t, changed, 1, "a drift moves one attribute")
			step(t, e, a)
		}
	}
}

// BestConstant against brute force through the episodes themselves: every
// level vector (scalings included) played as a constant final answer.
func TestBestConstantBruteForce(t *testing.T) {
	c := tinyConfig()
	c.GuessLevels = 3
	task := newTask(t, c)
	const n = 120
	answer, rate, err := task.BestConstant(tasks.Test, n)
	require.NoError(t, err)
	best := -1.0
	for code := 1; code < 27; code++ {
		gv := []int{code / 9, code / 3 % 3, code % 3}
		pol := &fixedGuess{t: task, g: gv}
		s, err := tasks.Evaluate(task, pol, tasks.Test, n, 1, task.TurnLimit())
		require.NoError(t, err)
		if s.Success > best {
			best = s.Success
		}
		if task.vocab.Decode(task.EncodeGuess(gv)) == answer {
			assert.Equal(t, rate, s.Success, "the reported rate is what episodes score")
		}
	}
	assert.Equal(t, best, rate)
	_, _, err = task.BestConstant(tasks.Test, 0)
	assert.Error(t, err)
}

// fixedGuess asks random queries and always states g.
type fixedGuess struct {
	t *Task
	g []int
}

func (p *fixedGuess) Name() string { return "fixed" }

func (p *fixedGuess) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	e := ep.(*Episode)
	if e.Next().Kind == tasks.AS {
		return p.t.EncodeQuery(e.randomQuery(rng, false)), nil
	}
	return p.t.EncodeGuess(p.g), nil
}

// The constant policy states the train split's best constant every round
// and scores on the train split exactly the rate BestConstant reports.
func TestConstantPolicy(t *testing.T) {
	task := newTask(t, tinyConfig())
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "constant"})
	require.NoError(t, err)
	answer, rate, err := task.BestConstant(tasks.Train, constantTrainN)
	require.NoError(t, err)
	s, err := tasks.Evaluate(task, pol, tasks.Train, constantTrainN, 1, task.TurnLimit())
	require.NoError(t, err)
	assert.Equal(t, rate, s.Success)
	e, err := task.newEpisode(tasks.Test, 0)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 1))
	for !e.Done() {
		a, err := pol.Act(e, rng)
		require.NoError(t, err)
		if e.Next().Kind == tasks.BT {
			assert.Equal(t, answer, task.vocab.Decode(a))
		}
		step(t, e, a)
	}
}

func TestScriptedErrors(t *testing.T) {
	task := newTask(t, tinyConfig())
	_, err := task.Scripted(tasks.PolicySpec{Kind: "oracle"})
	assert.Error(t, err)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 1.5})
	assert.Error(t, err)
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "random"})
	require.NoError(t, err)
	other := newTask(t, tinyConfig())
	e, err := other.NewEpisode(tasks.Test, 0)
	require.NoError(t, err)
	_, err = pol.Act(e, rand.New(rand.NewPCG(1, 1)))
	assert.Error(t, err, "an episode of another task")
}
