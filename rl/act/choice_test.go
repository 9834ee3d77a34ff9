package act

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks"
)

// actionChoices is the fixture's critic examples with an admissible
// alternative (the action format's critic data: under the trie every
// alternative is a listed command), and a fresh tiny model that fits
// their prompts in the action format.
func actionChoices(t *testing.T) (fixture, []CriticExample, *model.Model) {
	t.Helper()
	f := newFixture(t)
	var data []CriticExample
	prompt, answer := 0, 0
	for _, c := range f.critic {
		if c.AltAdmissible {
			data = append(data, c)
			p, _ := ChoiceAction.Prompt(f.env.Vocab, c)
			prompt, answer = max(prompt, len(p)), max(answer, ChoiceAction.MaxAnswer(c))
		}
	}
	require.GreaterOrEqual(t, len(data), 3)
	return f, data, tinyModel(t, f.env.Vocab.Size(), prompt+answer)
}

// TestActionCriticWritesOnlyACandidate: in the action channel the critic
// can write nothing but one of its two candidates. A fresh model (whose
// preferences are arbitrary) sampled at temperature 1 by the generator
// (ChoiceAccuracy's and the decoder's loop) and by rl's rollout on the
// ACT stage's task writes exactly a⁺ or a⁻, both turn up, every rollout
// token was drawn under the tree's set, and a forced token (where the two
// candidates agree) has log-prob 0.
func TestActionCriticWritesOnlyACandidate(t *testing.T) {
	f, data, m := actionChoices(t)
	v := f.env.Vocab
	g, err := NewGenerator(m, 1)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(7, 7))
	seen := map[int]int{}
	for _, c := range data {
		prompt, _ := ChoiceAction.Prompt(v, c)
		assert.Equal(t, v.ID("<act>"), prompt[len(prompt)-1], "the actor's tag asks for the answer")
		for range 20 {
			a, finished, err := g.Generate(prompt, ChoiceAction.Constraint(c), ChoiceAction.MaxAnswer(c), rng)
			require.NoError(t, err)
			require.True(t, finished, "every path of the tree ends with <eot> in time")
			pick, err := ChoiceAction.Parse(v, c, a)
			require.NoError(t, err, "%q is one of the two candidates", v.Decode(a))
			seen[pick]++
		}
	}
	assert.Len(t, seen, 2, "both candidates are written: %v", seen)

	task, err := ChoiceTask(f.env, ChoiceAction, DefaultShaping(), data, nil)
	require.NoError(t, err)
	require.True(t, task.(rl.MaskedTask).Masked(), "the ACT stage's task decodes under the mask")
	r, err := rl.NewRoller(m, task, rl.RolloutConfig{Workers: 1, Slots: 4, Sampler: rl.SamplerConfig{Temperature: 1}})
	require.NoError(t, err)
	specs := make([]rl.EpisodeSpec, 8*len(data))
	for i := range specs {
		specs[i] = rl.EpisodeSpec{Split: tasks.Train, Index: i % len(data)}
	}
	trajs, _, err := r.Play(specs, 3, 0)
	require.NoError(t, err)
	for k, tr := range trajs {
		c := data[specs[k].Index]
		trie := NewTrie([][]tasks.Token{c.Expert, c.Alt})
		var answer []tasks.Token
		for p, tok := range tr.Tokens {
			if !tr.Agent[p] {
				continue
			}
			want := trie.Next(answer)
			assert.Equal(t, want, tr.Allowed[p])
			assert.Contains(t, want, tok)
			if len(want) == 1 {
				assert.Zero(t, tr.Logp[p], "a forced token has probability 1")
			}
			answer = append(answer, tok)
		}
		require.Equal(t, tasks.EOT, answer[len(answer)-1])
		_, err := ChoiceAction.Parse(v, c, answer[:len(answer)-1])
		assert.NoError(t, err, "rollout %d wrote %q", k, v.Decode(answer))
		assert.False(t, tr.Measures.Malformed > 0)
	}
}

// TestActionChoiceReward: R_acc = 1 exactly when the written action is
// the expert's; the other candidate earns R_adm when it applies (0 under
// R_acc alone), and an answer that is neither candidate (which the mask
// cannot write) R_fmt.
func TestActionChoiceReward(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	for _, sh := range []Shaping{DefaultShaping(), AccuracyOnly()} {
		task, err := ChoiceTask(f.env, ChoiceAction, sh, f.critic, nil)
		require.NoError(t, err)
		for i, c := range f.critic {
			r, m := answer(t, task, i, c.Expert)
			assert.Equal(t, sh.Correct, r)
			assert.True(t, m.Success)
			r, m = answer(t, task, i, c.Alt)
			assert.False(t, m.Success)
			if c.AltAdmissible {
				assert.Equal(t, sh.Admissible, r)
			} else {
				assert.Equal(t, 0.0, r)
			}
			for _, bad := range [][]tasks.Token{nil, v.Encode("1"), append(slices.Clone(c.Expert), c.Alt...)} {
				r, m = answer(t, task, i, bad)
				assert.Equal(t, sh.Format, r, "%q", v.Decode(bad))
				assert.Equal(t, 1, m.Malformed)
			}
		}
	}
}

// TestActionChoiceRenormalised: the log-probs the ACT stage trains on are
// those of the policy renormalised under the two-candidate tree, on rl's
// masked training graph (model.NewMaskedGraph, the bias rl.MaskBias off
// the tree): summed over each candidate's tokens and <eot>, q(a⁺) + q(a⁻)
// = 1 on every example, while the plain softmax gives the two sequences
// far less; and a rollout's recorded log-prob of its answer, the old
// log-prob of the GRPO ratio, is the graph's q of the candidate it wrote.
func TestActionChoiceRenormalised(t *testing.T) {
	f, data, m := actionChoices(t)
	v := f.env.Vocab
	V := m.Config.Vocab
	for _, c := range data {
		prompt, _ := ChoiceAction.Prompt(v, c)
		trie := ChoiceAction.Constraint(c)
		T := len(prompt) + ChoiceAction.MaxAnswer(c) - 1
		tokens, targets := make([]int32, 2*T), make([]int32, 2*T)
		bias := make([]float32, 2*T*V)
		for b, cand := range [][]tasks.Token{c.Expert, c.Alt} {
			seq := append(append(slices.Clone(prompt), cand...), tasks.EOT)
			for p := range T {
				if p+1 < len(seq) {
					tokens[b*T+p], targets[b*T+p] = seq[p], seq[p+1]
				}
				if k := p + 1 - len(prompt); k >= 0 && k <= len(cand) {
					row := bias[(b*T+p)*V : (b*T+p+1)*V]
					for j := range row {
						row[j] = rl.MaskBias
					}
					for _, a := range trie.Next(cand[:k]) {
						row[a] = 0
					}
				}
			}
		}
		lq, lp := [2]float64{}, [2]float64{}
		for _, masked := range []bool{true, false} {
			g, err := m.NewGraph(2, T)
			if masked {
				g, err = m.NewMaskedGraph(2, T)
			}
			require.NoError(t, err)
			require.NoError(t, g.SetInputs(tokens, targets))
			if masked {
				require.NoError(t, g.SetLogitBias(bias))
			}
			require.NoError(t, g.Forward())
			logp := model.Float32s(g.Logp)
			for b, cand := range [][]tasks.Token{c.Expert, c.Alt} {
				s := 0.0
				for p := len(prompt) - 1; p < len(prompt)+len(cand); p++ {
					s += float64(logp[b*T+p])
				}
				if masked {
					lq[b] = s
				} else {
					lp[b] = s
				}
			}
			g.Close()
		}
		q := math.Exp(lq[0]) + math.Exp(lq[1])
		assert.InDelta(t, 1, q, 1e-5, "q(a⁺) + q(a⁻) on %q / %q", v.Decode(c.Expert), v.Decode(c.Alt))
		assert.Less(t, math.Exp(lp[0])+math.Exp(lp[1]), 0.5, "the unmasked policy spreads over the vocabulary")
		assert.Greater(t, math.Exp(lq[0]), 0.0)
		assert.Greater(t, math.Exp(lq[1]), 0.0)

		task, err := ChoiceTask(f.env, ChoiceAction, DefaultShaping(), []CriticExample{c}, nil)
		require.NoError(t, err)
		r, err := rl.NewRoller(m, task, rl.RolloutConfig{Workers: 1, Slots: 2, Sampler: rl.SamplerConfig{Temperature: 1}})
		require.NoError(t, err)
		trajs, _, err := r.Play([]rl.EpisodeSpec{{Split: tasks.Train}, {Split: tasks.Train}, {Split: tasks.Train}}, 5, 0)
		require.NoError(t, err)
		for _, tr := range trajs {
			s, ans := 0.0, []tasks.Token{}
			for p, tok := range tr.Tokens {
				if tr.Agent[p] {
					s += float64(tr.Logp[p])
					ans = append(ans, tok)
				}
			}
			pick, err := ChoiceAction.Parse(v, c, ans[:len(ans)-1])
			require.NoError(t, err)
			b := 0
			if pick != c.ExpertSlot() {
				b = 1
			}
			assert.InDelta(t, lq[b], s, 1e-4, "the rollout's log q of its answer")
		}
	}
}

// TestACTStageAnchorsAndStaysMasked: the ACT stage in the action channel
// (DefaultACTStage, a few small updates) reports its KL to the policy it
// started from (RefKL: finite, 0 before the first step, then positive),
// none without the anchor (NaN); its samples never fail to parse, and the
// trainer's masked graph recomputes the sampler's renormalised log-probs
// (LogpGapMax).
func TestACTStageAnchorsAndStaysMasked(t *testing.T) {
	f, data, m := actionChoices(t)
	stage := DefaultConfig().ACT
	require.Equal(t, DefaultACTKL, stage.GRPO.Policy.KLCoef)
	stage.Updates, stage.GRPO.Prompts, stage.GRPO.GroupSize = 3, 4, 4
	stage.GRPO.Policy.MiniBatch = 8
	stage.GRPO.Rollout.Workers = 1
	_, ms, err := TrainACT(context.Background(), m, f.env, ChoiceAction, data, stage)
	require.NoError(t, err)
	require.Len(t, ms, 3)
	for i, mt := range ms {
		assert.False(t, math.IsNaN(mt.RefKL), "update %d reports the KL term", i)
		assert.GreaterOrEqual(t, mt.RefKL, 0.0)
		assert.Zero(t, mt.Malformed)
		assert.Less(t, mt.LogpGapMax, 1e-4)
	}
	assert.Positive(t, ms[2].RefKL, "the policy has moved from where the stage started")
	stage.GRPO.Policy.KLCoef = 0
	_, ms, err = TrainACT(context.Background(), m, f.env, ChoiceAction, data, stage)
	require.NoError(t, err)
	assert.True(t, math.IsNaN(ms[0].RefKL), "no anchor, no KL term")
}

// TestActionFormatDataCarriesNoJudgement: π_θ0's format examples in the
// action channel answer every prompt once with each candidate, after the
// prompt's <act>.
func TestActionFormatDataCarriesNoJudgement(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	trs := FormatData(v, ChoiceAction, f.pairs, rand.New(rand.NewPCG(3, 4)))
	require.NotEmpty(t, trs)
	for i := 0; i < len(trs); i += 2 {
		one, two := trs[i], trs[i+1]
		k := slices.Index(one.Agent, true)
		require.Equal(t, k, slices.Index(two.Agent, true))
		assert.Equal(t, one.Tokens[:k], two.Tokens[:k], "one prompt")
		assert.Equal(t, v.ID("<act>"), one.Tokens[k-1])
		a, b := one.Tokens[k:len(one.Tokens)-1], two.Tokens[k:len(two.Tokens)-1]
		assert.NotEqual(t, a, b, "two answers")
		state := v.Decode(one.Tokens[:k])
		assert.Contains(t, state, " : "+v.Decode(a)+" <sep>")
	}
}

// TestStagesShareThePrompt: the ACT and the RL stage, one update from the
// same model, with each group's prompt shared in the training graph (the
// default when the batch is one minibatch) and without (PlainPrompts):
// the same samples and, to float32 rounding, the same loss, entropy, KL
// and gradient norm.
func TestStagesShareThePrompt(t *testing.T) {
	f, data, m := actionChoices(t)
	stage := DefaultConfig().ACT
	stage.Updates, stage.GRPO.Prompts, stage.GRPO.GroupSize = 1, 4, 4
	stage.GRPO.Policy.MiniBatch, stage.GRPO.Policy.Epochs = 16, 1
	stage.GRPO.Rollout.Workers = 1
	for _, name := range []string{"act", "rl"} {
		var ms [2][]rl.Metrics
		for k, plain := range []bool{true, false} {
			s := stage
			s.PlainPrompts = plain
			var err error
			if name == "act" {
				_, ms[k], err = TrainACT(context.Background(), m, f.env, ChoiceAction, data, s)
			} else {
				s.Shaping = AccuracyOnly()
				_, ms[k], err = TrainRL(context.Background(), m, f.env, DecodeTrie, f.pairs, DefaultCollect().MaxAction, s)
			}
			require.NoError(t, err)
		}
		a, b := ms[0][0], ms[1][0]
		assert.Equal(t, a.Success, b.Success, "%s: the same samples", name)
		assert.Less(t, b.LogpGapMax, 1e-4, "%s", name)
		assert.InDelta(t, a.PolicyLoss, b.PolicyLoss, 1e-5, "%s: loss", name)
		assert.InDelta(t, a.Entropy, b.Entropy, 1e-5, "%s: entropy", name)
		assert.InDelta(t, a.RefKL, b.RefKL, 1e-5, "%s: KL", name)
		assert.InDelta(t, a.GradNorm, b.GradNorm, 1e-5*max(1, a.GradNorm), "%s: gradient norm", name)
	}
}
