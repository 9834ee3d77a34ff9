package mediq

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/internal/diagnosis"
	"arew/tasks/internal/diagnosis/diagnosistest"
	"arew/tasks/taskstest"
)

func TestConfig(t *testing.T) {
	task, err := tasks.New("mediq", nil)
	require.NoError(t, err)
	assert.Equal(t, "mediq", task.Name())
	assert.LessOrEqual(t, task.MaxTokens(), 256)
	assert.LessOrEqual(t, task.Vocab().Size(), 100)
	c, err := tasks.New("mediq", json.RawMessage(`{"Critiques": "consistent", "Rounds": 3}`))
	require.NoError(t, err)
	assert.Equal(t, 3, c.(*Task).Config().Rounds)
	for _, bad := range []string{
		`{"Diagnoses": 3}`, `{"Findings": 0}`, `{"Hallmarks": 40}`, `{"PGraded": 1.5}`,
		`{"SensMin": 0.9, "SensMax": 0.8}`, `{"SensMax": 1, "FalseMax": 0.1}`,
		`{"FalseMin": 0.2, "FalseMax": 0.1}`, `{"PUnknown": 1}`, `{"PUnknownOther": 2}`,
		`{"InitialFacts": 40}`, `{"Rounds": 0}`, `{"Levels": 11}`, `{"RuleOut": 0}`,
		`{"Critiques": "code"}`, `{"Seeds": 1}`,
	} {
		_, err := tasks.New("mediq", json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

func TestKnowledgeBase(t *testing.T) {
	cfg := DefaultConfig()
	task, err := New("kb", cfg)
	require.NoError(t, err)
	k := task.kb
	for d, hs := range k.hallmarks {
		assert.Len(t, hs, cfg.Hallmarks, "dx%d", d)
		assert.NotEqual(t, hs[0], hs[1], "distinct hallmarks")
		for _, f := range hs {
			top := 0.0
			for v := 1; v < k.findings[f].values(); v++ {
				top = math.Max(top, k.findings[f].lik[d][v])
			}
			assert.True(t, top >= cfg.SensMin && top <= cfg.SensMax, "sensitivity %v", top)
		}
	}
	for f, fd := range k.findings {
		for d, p := range fd.lik {
			s := 0.0
			for _, x := range p {
				assert.GreaterOrEqual(t, x, 0.0)
				s += x
			}
			assert.InDelta(t, 1, s, 1e-12, "fn%d dx%d", f, d)
			isHallmark := false
			for _, h := range k.hallmarks[d] {
				isHallmark = isHallmark || h == f
			}
			if !isHallmark {
				assert.Less(t, 1-p[0], cfg.FalseMax+1e-12, "a non-hallmark is rarely abnormal")
			}
		}
	}
	// At the edge SensMax + FalseMax/2 = 1 every likelihood stays ≥ 0.
	edge := cfg
	edge.SensMin, edge.SensMax, edge.FalseMin, edge.FalseMax, edge.PGraded = 0.95, 0.95, 0.1, 0.1, 1
	require.NoError(t, edge.Validate())
	for _, fd := range newKB(edge).findings {
		for _, p := range fd.lik {
			for _, x := range p {
				assert.GreaterOrEqual(t, x, 0.0)
			}
		}
	}
	// The knowledge base is a function of the seed alone.
	again, err := New("kb", cfg)
	require.NoError(t, err)
	assert.Equal(t, k, again.kb)
	cfg.Seed = 2
	other, err := New("kb", cfg)
	require.NoError(t, err)
	assert.NotEqual(t, k, other.kb)
}

func TestPatients(t *testing.T) {
	task, err := New("p", DefaultConfig())
	require.NoError(t, err)
	var truths [4]int
	dx := make([]int, task.cfg.Diagnoses)
	pertKnown, pertN, otherKnown, otherN := 0, 0, 0, 0
	const n = 2000
	for i := range n {
		p, err := task.patient(tasks.Train, i)
		require.NoError(t, err)
		truths[p.truth]++
		dx[p.options[p.truth]]++
		seen := map[int]bool{}
		for _, d := range p.options {
			assert.False(t, seen[d], "options are distinct")
			seen[d] = true
		}
		assert.Len(t, p.initial, 1)
		for f, k := range p.known {
			if task.pertinent(p.options, f) {
				pertN++
				pertKnown += b2i(k)
			} else {
				otherN++
				otherKnown += b2i(k)
			}
		}
	}
	for _, c := range truths {
		assert.InDelta(t, n/4, c, 70, "the correct option letter is uniform")
	}
	for _, c := range dx {
		assert.InDelta(t, n/len(dx), c, 60, "the correct diagnosis is uniform")
	}
	assert.InDelta(t, 0.85, float64(pertKnown)/float64(pertN), 0.02)
	assert.InDelta(t, 0.2, float64(otherKnown)/float64(otherN), 0.02)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDeterminismAndSplits(t *testing.T) {
	task, err := New("d", DefaultConfig())
	require.NoError(t, err)
	weak := tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5}
	play := func(split tasks.Split, i int) []tasks.Token { return taskstest.Stream(t, task, weak, split, i, 7) }
	assert.Equal(t, play(tasks.Test, 5), play(tasks.Test, 5))
	assert.NotEqual(t, play(tasks.Test, 5), play(tasks.Test, 6))

	// Prompts are short and may coincide; the hidden patients never do.
	key := func(p *patient) string {
		b, _ := json.Marshal([]any{p.options, p.truth, p.values, p.known, p.initial})
		return string(b)
	}
	train := map[string]bool{}
	for i := range 500 {
		p, err := task.patient(tasks.Train, i)
		require.NoError(t, err)
		train[key(p)] = true
	}
	for i := range 500 {
		p, err := task.patient(tasks.Test, i)
		require.NoError(t, err)
		assert.False(t, train[key(p)], "test patient %d is a train one", i)
	}
	_, err = task.NewEpisode(tasks.Train, tasks.MaxInstances)
	assert.Error(t, err)
}

// The episode's exact posterior against brute-force enumeration of the full
// joint: option × every finding's value × which facts the patient knows,
// conditioned on the prompt's facts and the replies (values and "unknown").
func TestBayesAgainstBruteForce(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Diagnoses, cfg.Findings, cfg.Hallmarks, cfg.PGraded, cfg.Rounds = 5, 4, 1, 0.5, 3
	cfg.PUnknown, cfg.PUnknownOther = 0.3, 0.6
	rng := rand.New(rand.NewPCG(4, 4))
	for seed := range uint64(8) {
		cfg.Seed = seed
		task, err := New("tiny", cfg)
		require.NoError(t, err)
		for i := range 25 {
			p, err := task.patient(tasks.Train, i)
			require.NoError(t, err)
			e := newEpisode(task, p)
			// observed[f]: −1 not observed, −2 "unknown", else the value.
			observed := []int{-1, -1, -1, -1}
			for _, f := range p.initial {
				observed[f] = p.values[f]
			}
			for !e.Done() {
				if e.Next().Kind == tasks.BT {
					_, _, err := e.Step(diagnosistest.Words(task.vocab, "1 1 1 1 <cf> 1 1 1 1"))
					require.NoError(t, err)
					continue
				}
				f := rng.IntN(cfg.Findings)
				_, _, err := e.Step([]tasks.Token{task.fn0 + tasks.Token(f)})
				require.NoError(t, err)
				if observed[f] == -1 {
					observed[f] = -2
					if p.known[f] {
						observed[f] = p.values[f]
					}
				}
			}
			brute := bruteForcePosterior(task, p, observed)
			sum := 0.0
			for o := range 4 {
				assert.InDelta(t, brute[o], e.post[o], 1e-12, "seed %d patient %d option %d", seed, i, o)
				sum += e.post[o]
			}
			assert.InDelta(t, 1, sum, 1e-12)
		}
	}
}

func bruteForcePosterior(task *Task, p *patient, observed []int) []float64 {
	nf := task.cfg.Findings
	joint := make([]float64, 4)
	values, known := make([]int, nf), make([]bool, nf)
	var walk func(o, f int, prob float64)
	walk = func(o, f int, prob float64) {
		if f == nf {
			for g, obs := range observed {
				switch {
				case obs == -1:
				case obs == -2 && known[g]:
					return
				case obs >= 0 && values[g] != obs:
					return
				case obs >= 0 && !known[g] && !isInitial(p, g):
					return
				}
			}
			joint[o] += prob
			return
		}
		pu := task.pUnknown(p.options, f)
		for v, pv := range task.kb.findings[f].lik[p.options[o]] {
			values[f] = v
			known[f] = true
			walk(o, f+1, prob*pv*(1-pu))
			known[f] = false
			walk(o, f+1, prob*pv*pu)
		}
	}
	z := 0.0
	for o := range 4 {
		walk(o, 0, 0.25)
		z += joint[o]
	}
	for o := range joint {
		joint[o] /= z
	}
	return joint
}

func isInitial(p *patient, f int) bool {
	for _, g := range p.initial {
		if g == f {
			return true
		}
	}
	return false
}

// Every episode stays within MaxTokens when each turn respects
// Turn.MaxTokens; an all-malformed episode reaches it exactly
// (diagnosistest.TokenBudget).
func TestTokenBudget(t *testing.T) {
	task, err := New("budget", DefaultConfig())
	require.NoError(t, err)
	assert.Equal(t, 70, diagnosistest.TokenBudget(t, task, task.promptLen(), 2*task.cfg.Rounds))
}

func TestPolicies(t *testing.T) {
	task, err := New("pol", DefaultConfig())
	require.NoError(t, err)
	eval := func(spec tasks.PolicySpec) tasks.Summary {
		return diagnosistest.Evaluate(t, task, spec, 400, 2*task.cfg.Rounds)
	}
	random := eval(tasks.PolicySpec{Kind: "random"})
	weak := eval(tasks.PolicySpec{Kind: "weak", QAS: 0.1, QBT: 0.1})
	strong := eval(tasks.PolicySpec{Kind: "strong"})
	constant := eval(tasks.PolicySpec{Kind: "constant"})
	assert.Greater(t, strong.Success, 0.8)
	assert.Less(t, random.Success, 0.35)
	assert.Less(t, constant.Success, 0.32)
	assert.Less(t, weak.Success, 0.32)
	assert.Greater(t, strong.ASProxy, 2.5*weak.ASProxy)
	assert.Greater(t, strong.BTProxy, 5*weak.BTProxy)
	assert.Greater(t, strong.IAS, 4*weak.IAS)
	assert.Greater(t, strong.Evidence, 0.8)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "weak", QBT: -1})
	assert.Error(t, err)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "expert"})
	assert.Error(t, err)
	ans, succ, err := task.BestConstant(tasks.Test, 800)
	require.NoError(t, err)
	assert.Contains(t, ans, "option")
	assert.InDelta(t, 0.25, succ, 0.05)
	_, _, err = task.BestConstant(tasks.Test, -1)
	assert.Error(t, err)
}

// Under the consistent critiques the strong policy's beliefs never put their
// top on a ruled-out option.
func TestConsistentStrong(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Critiques = "consistent"
	task, err := New("c", cfg)
	require.NoError(t, err)
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	pos := 0
	for i := range 200 {
		ep, err := task.NewEpisode(tasks.Test, i)
		require.NoError(t, err)
		_, err = tasks.Play(ep, pol, rand.New(rand.NewPCG(3, uint64(i))), 2*cfg.Rounds)
		require.NoError(t, err)
		for _, s := range ep.Steps() {
			if s.Kind == tasks.BT {
				assert.GreaterOrEqual(t, s.Z, int8(0), s.Text)
			} else if s.Z > 0 {
				pos++
			}
		}
	}
	assert.Greater(t, pos, 400, "most strong queries split C")
}

func TestPolicyErrors(t *testing.T) {
	a, err := New("a", DefaultConfig())
	require.NoError(t, err)
	b, err := New("b", DefaultConfig())
	require.NoError(t, err)
	diagnosistest.PolicyErrors(t, a, b, tasks.PolicySpec{Kind: "random"}, 8)
}

// randomBayes asks random findings and states the exact posterior: belief
// tracking without action selection.
type randomBayes struct{ t *Task }

func (p randomBayes) Name() string { return "random questions + Bayes" }
func (p randomBayes) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	e := ep.(*episode)
	if e.QueryTurn() {
		return []tasks.Token{p.t.fn0 + tasks.Token(rng.IntN(p.t.cfg.Findings))}, nil
	}
	real := diagnosis.BayesLevels(p.t.levels, e.post, e.FinalTurn(), rng)
	return append(append(p.t.levels.Encode(real), p.t.cf), p.t.levels.Encode(real)...), nil
}

// Each skill alone is far from enough; success needs both (the coupling the
// paper is about).
func TestEachSkillAlone(t *testing.T) {
	task, err := New("skills", DefaultConfig())
	require.NoError(t, err)
	success := func(pol tasks.Policy) float64 {
		s, err := tasks.Evaluate(task, pol, tasks.Test, 400, 1, 2*task.cfg.Rounds)
		require.NoError(t, err)
		return s.Success
	}
	onlyAS, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 1, QBT: 0})
	require.NoError(t, err)
	promptOnly, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 0, QBT: 1})
	require.NoError(t, err)
	strong, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	s := success(strong)
	assert.Less(t, success(onlyAS), 0.32)
	assert.Less(t, success(promptOnly), 0.4)
	rb := success(randomBayes{task})
	assert.Less(t, rb, 0.6)
	assert.Greater(t, s-rb, 0.3)
}
