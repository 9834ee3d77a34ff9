package rl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// longSpell is spell (mask_test.go) behind a longer prompt: <bos> c_i,
// then 6 + 5·(i mod 4) filler tokens, then <answer>, so the groups'
// prompts differ in length and are several times their answers.
type longSpell struct{ spell }

func (s *longSpell) MaxTokens() int { return 3 + 21 + 3 }

func (s *longSpell) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	ep, err := s.spell.NewEpisode(split, index)
	if err != nil {
		return nil, err
	}
	return &longSpellEpisode{ep.(*spellEpisode)}, nil
}

type longSpellEpisode struct{ *spellEpisode }

func (e *longSpellEpisode) Prompt() []tasks.Token {
	p := []tasks.Token{tasks.BOS, e.c(0)}
	for j := range 6 + 5*(e.i%4) {
		p = append(p, e.c(j+1))
	}
	return append(p, e.s.vocab.ID("<answer>"))
}

// TestSharedPromptMatchesPlain: one GRPO update with the KL anchor and an
// entropy bonus, from the same weights and seeds, with each group's prompt
// shared (one prefix graph) and without (G copies through the plain
// graph): the same
// rollouts, the same old and reference log-probs (the recomputation gap),
// and the same loss, entropy, KL, ratio statistics and gradient, to
// float32 rounding, on the masked and the unmasked task. One policy epoch,
// so the gradient compared is the first step's, taken at equal weights.
func TestSharedPromptMatchesPlain(t *testing.T) {
	for _, masked := range []bool{false, true} {
		task := &longSpell{spell{bandit: newBandit(6), masked: masked}}
		init := tinyPolicy(t, task, 17, false)
		cfg := DefaultGRPOConfig()
		cfg.Prompts, cfg.GroupSize = 6, 4
		cfg.Rollout.Workers = 1
		cfg.Policy.Epochs, cfg.Policy.MiniBatch = 1, 24
		cfg.Policy.KLCoef = 0.04
		cfg.Policy.EntropyCoef = 0.01 // a gradient at every answer token, rewarded or not
		var ms [2]Metrics
		var grads [2]map[string][]float32
		for k, share := range []bool{false, true} {
			policy, err := init.Clone()
			require.NoError(t, err)
			c := cfg
			c.SharePrompt = share
			g, err := NewGRPO(task, policy, c)
			require.NoError(t, err)
			ms[k], err = g.Update()
			require.NoError(t, err)
			g.Close()
			grads[k] = map[string][]float32{}
			for _, p := range policy.Params.Params() {
				grads[k][p.Name] = append([]float32(nil), p.Grad...)
			}
		}
		plain, shared := ms[0], ms[1]
		assert.Equal(t, plain.Success, shared.Success, "masked %v: the same rollouts", masked)
		assert.Less(t, shared.LogpGapMax, 1e-4, "the shared graph recomputes the sampler's log-probs")
		for name, v := range map[string][2]float64{
			"loss": {plain.PolicyLoss, shared.PolicyLoss}, "entropy": {plain.Entropy, shared.Entropy},
			"approx kl": {plain.ApproxKL, shared.ApproxKL}, "ref kl": {plain.RefKL, shared.RefKL},
			"grad norm": {plain.GradNorm, shared.GradNorm}, "first log ratio": {plain.FirstLogRatioMax, shared.FirstLogRatioMax},
		} {
			assert.InDelta(t, v[0], v[1], 1e-5, "masked %v: %s", masked, name)
		}
		worst := 0.0
		for name, want := range grads[0] {
			got := grads[1][name]
			require.Len(t, got, len(want))
			for i := range want {
				d := math.Abs(float64(want[i]) - float64(got[i]))
				worst = math.Max(worst, d)
				assert.LessOrEqual(t, d, 1e-6+1e-4*math.Abs(float64(want[i])), "masked %v: gradient of %s[%d]", masked, name, i)
			}
		}
		t.Logf("masked %v: loss %.8f (plain %.8f), gradient norm %.6f (plain %.6f), largest gradient difference %.2g",
			masked, shared.PolicyLoss, plain.PolicyLoss, shared.GradNorm, plain.GradNorm, worst)
	}
}

// Sharing the prompt needs the whole batch in one minibatch and no critic.
func TestSharedPromptNeedsOneMinibatch(t *testing.T) {
	task := &longSpell{spell{bandit: newBandit(6), masked: true}}
	cfg := DefaultGRPOConfig()
	cfg.Prompts, cfg.GroupSize, cfg.Policy.MiniBatch = 6, 4, 12
	cfg.SharePrompt = true
	_, err := NewGRPO(task, tinyPolicy(t, task, 1, false), cfg)
	assert.ErrorContains(t, err, "share_prompt")
}
