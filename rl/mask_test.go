package rl

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
)

// spell is a masked task: the prompt <bos> c_i <answer> wants the answer
// "c_i c_{i+1}" (indices mod k), and the mask allows only three answers,
//
//	c_i c_{i+1} <eot>      (the right one)
//	c_{i+2} c_{i+3} <eot>
//	c_{i+2} c_{i+1} <eot>
//
// so the second token after c_i and every <eot> are forced.
type spell struct {
	*bandit
	masked bool
}

func (s *spell) Masked() bool   { return s.masked }
func (s *spell) MaxTokens() int { return 6 }

func (s *spell) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	seed, err := tasks.InstanceSeed(split, index)
	if err != nil {
		return nil, err
	}
	i := int(mix64(seed) % uint64(s.k))
	return &spellEpisode{s: s, i: i}, nil
}

type spellEpisode struct {
	s     *spell
	i     int
	steps []tasks.Step
	right bool
}

func (e *spellEpisode) c(d int) tasks.Token { return e.s.choice((e.i + d) % e.s.k) }

// answers are the three answers the mask allows, EOT included.
func (e *spellEpisode) answers() [][]tasks.Token {
	return [][]tasks.Token{{e.c(0), e.c(1), tasks.EOT}, {e.c(2), e.c(3), tasks.EOT}, {e.c(2), e.c(1), tasks.EOT}}
}

func (e *spellEpisode) Allowed(turn []tasks.Token) []tasks.Token {
	var out []tasks.Token
	for _, a := range e.answers() {
		if len(turn) < len(a) && slices.Equal(a[:len(turn)], turn) && !slices.Contains(out, a[len(turn)]) {
			out = append(out, a[len(turn)])
		}
	}
	return out
}

func (e *spellEpisode) Prompt() []tasks.Token {
	return []tasks.Token{tasks.BOS, e.c(0), e.s.vocab.ID("<answer>")}
}
func (e *spellEpisode) Next() tasks.Turn {
	return tasks.Turn{Kind: tasks.AS, Final: true, MaxTokens: 3}
}
func (e *spellEpisode) Done() bool          { return len(e.steps) == 1 }
func (e *spellEpisode) Steps() []tasks.Step { return e.steps }

func (e *spellEpisode) Step(action []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	if e.Done() {
		return nil, tasks.Step{}, fmt.Errorf("spell: episode over")
	}
	e.right = slices.Equal(action, []tasks.Token{e.c(0), e.c(1)})
	st := tasks.Step{Kind: tasks.AS, Final: true, Z: -1, TruthMass: math.NaN()}
	if e.right {
		st.Z = 1
	}
	e.steps = append(e.steps, st)
	return nil, st, nil
}

func (e *spellEpisode) Measures() tasks.Measures {
	nan := math.NaN()
	m := tasks.Measures{Success: e.right, ASProxy: nan, BTProxy: nan, IAS: nan, CBT: nan, Evidence: nan, Turns: len(e.steps)}
	if e.right {
		m.Reward = 1
	}
	return m
}

// A masked rollout writes only what the mask allows, records each agent
// token's allowed set (and none elsewhere), and its log-probs are those of
// the softmax renormalised over the set: a forced token has log-prob 0
// exactly, and every log-prob is at least the unmasked log π of the same
// token (log q = log π − log Σ_allowed π), the masked training graph
// recomputing them to float32 rounding.
func TestMaskedRolloutStaysInTheMask(t *testing.T) {
	task := &spell{bandit: newBandit(6), masked: true}
	policy := tinyPolicy(t, task, 9, false)
	r, err := NewRoller(policy, task, RolloutConfig{Workers: 2, Slots: 4, Sampler: SamplerConfig{Temperature: 1}})
	require.NoError(t, err)
	specs := make([]EpisodeSpec, 48)
	for i := range specs {
		specs[i] = EpisodeSpec{Split: tasks.Train, Index: i % 12}
	}
	trajs, _, err := r.Play(specs, 3, 0)
	require.NoError(t, err)
	rows := newRows(len(trajs), task.MaxTokens()-1)
	rows.V, rows.bias = policy.Config.Vocab, make([]float32, len(trajs)*rows.T*policy.Config.Vocab)
	b, err := NewBatch(trajs)
	require.NoError(t, err)
	idx := make([]int, len(trajs))
	for i := range idx {
		idx[i] = i
	}
	require.NoError(t, rows.load(b, idx, nil))
	masked, err := policyGraph(policy, rows)
	require.NoError(t, err)
	defer masked.Close()
	plain, err := policy.NewGraph(rows.B, rows.T)
	require.NoError(t, err)
	defer plain.Close()
	for _, g := range []*model.Graph{masked, plain} {
		require.NoError(t, setInputs(g, rows))
		require.NoError(t, g.Forward())
	}
	mq, mp := model.Float32s(masked.Logp), model.Float32s(plain.Logp)
	seen := map[string]bool{}
	forced, free := 0, 0
	for k, tr := range trajs {
		ep, err := task.NewEpisode(tasks.Train, specs[k].Index)
		require.NoError(t, err)
		require.Len(t, tr.Allowed, len(tr.Tokens))
		var answer []tasks.Token
		for p, tok := range tr.Tokens {
			if !tr.Agent[p] {
				assert.Nil(t, tr.Allowed[p], "no set at an environment token")
				continue
			}
			want := ep.(*spellEpisode).Allowed(answer)
			assert.Equal(t, want, tr.Allowed[p], "the set the token was sampled under")
			assert.Contains(t, want, tok, "trajectory %d token %d", k, p)
			answer = append(answer, tok)
			j := k*rows.T + p - 1 // the prediction of token p
			assert.InDelta(t, tr.Logp[p], mq[j], 1e-5, "the masked graph recomputes the sampling log-prob")
			assert.GreaterOrEqual(t, float64(mq[j]), float64(mp[j])-1e-6, "log q ≥ log π")
			if len(want) == 1 {
				forced++
				assert.Zero(t, tr.Logp[p], "a forced token has probability 1")
			} else {
				free++
				assert.Greater(t, float64(mq[j]), float64(mp[j]), "renormalised over 2 of %d tokens", policy.Config.Vocab)
			}
		}
		assert.Contains(t, ep.(*spellEpisode).answers(), answer)
		seen[fmt.Sprint(answer[0] == ep.(*spellEpisode).c(0))] = true
	}
	assert.Positive(t, forced)
	assert.Positive(t, free)
	assert.Len(t, seen, 2, "both branches are sampled")

	bad := &spell{bandit: newBandit(6), masked: true}
	_, err = bad.bandit.NewEpisode(tasks.Train, 0)
	require.NoError(t, err)
	br, err := NewRoller(policy, maskedBandit{bad.bandit}, RolloutConfig{Workers: 1, Slots: 1, Sampler: SamplerConfig{Temperature: 1}})
	require.NoError(t, err)
	_, _, err = br.Play(specs[:1], 1, 0)
	assert.ErrorContains(t, err, "cannot say which tokens are allowed")
}

// maskedBandit claims a mask its episodes cannot give.
type maskedBandit struct{ *bandit }

func (maskedBandit) Masked() bool { return true }

// GRPO under the mask: its old log-probs (recomputed by the masked graph)
// match the sampler's, and it learns the spelling; the same task with the
// mask off samples over the whole vocabulary and records no sets.
func TestMaskedGRPOLearns(t *testing.T) {
	task := &spell{bandit: newBandit(4), masked: true}
	policy := tinyPolicy(t, task, 4, false)
	cfg := banditGRPOConfig("grpo")
	g, err := NewGRPO(task, policy, cfg)
	require.NoError(t, err)
	defer g.Close()
	var first, last Metrics
	for u := range 60 {
		m, err := g.Update()
		require.NoError(t, err)
		assert.Less(t, m.LogpGapMax, 1e-4, "update %d", u)
		assert.Zero(t, m.Malformed, "update %d", u)
		if u == 0 {
			first = m
		}
		last = m
	}
	t.Logf("sampled reward %.3f → %.3f", first.Reward, last.Reward)
	assert.Greater(t, last.Reward, 0.9)

	free := &spell{bandit: newBandit(4)}
	r, err := NewRoller(policy, free, RolloutConfig{Workers: 1, Slots: 4, Sampler: SamplerConfig{Temperature: 1}})
	require.NoError(t, err)
	trajs, _, err := r.Play([]EpisodeSpec{{Split: tasks.Train}, {Split: tasks.Train, Index: 1}}, 1, 0)
	require.NoError(t, err)
	for _, tr := range trajs {
		assert.Empty(t, tr.Allowed)
	}
}

func TestMaskLogits(t *testing.T) {
	z := []float32{1, 2, 3, 4}
	dst := make([]float32, 4)
	out, err := MaskLogits(dst, z, nil)
	require.NoError(t, err)
	assert.Equal(t, z, out, "no set: the row itself")
	out, err = MaskLogits(dst, z, []tasks.Token{0, 2})
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2 + MaskBias, 3, 4 + MaskBias}, out)
	assert.Equal(t, []float32{1, 2, 3, 4}, z, "the row is untouched")
	_, err = MaskLogits(make([]float32, 4), z, []tasks.Token{4})
	assert.ErrorContains(t, err, "outside the vocabulary")
	s := model.Sampler{Greedy: true}
	pick, err := s.Sample(nil, out)
	require.NoError(t, err)
	assert.Equal(t, int32(2), pick.Token, "greedy: the best allowed token")
	assert.InDelta(t, 3-math.Log(math.Exp(1)+math.Exp(3)), pick.LogProb, 1e-6, "renormalised over the set")
}
