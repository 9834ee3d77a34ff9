package rl

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
)

// untimed is m's text with the wall-clock fields zeroed: %v writes every
// float in its shortest round-trip form, so two texts are equal exactly
// when the metrics are bitwise equal (NaN included).
func untimed(m Metrics) string {
	m.RolloutSeconds, m.PrepSeconds, m.OptimSeconds, m.RolloutTokensPerSec, m.TrainTokensPerSec = 0, 0, 0, 0, 0
	return fmt.Sprintf("%+v", m)
}

// resumeCase builds a trainer of one config on a given policy.
type resumeCase struct {
	name string
	task func(t testing.TB) tasks.Task
	new  func(t *testing.T, task tasks.Task, policy *model.Model) Trainer
}

func resumeCases() []resumeCase {
	ppo := flodialPPOConfig()
	ppo.Episodes, ppo.Policy.MiniBatch = 4, 2
	ppo.Policy.EntropyCoef, ppo.Policy.KLCoef = 1e-3, 0.05 // a KL reference to restore too
	shared := ppo
	shared.Critic.Mode = "shared"
	heads := ppo
	heads.Policy.HeadRows = true // graphs rebuilt as capacity grows, from scratch after the resume
	grpo := banditGRPOConfig("grpo")
	grpo.Prompts, grpo.GroupSize, grpo.Policy.MiniBatch, grpo.Instances = 4, 4, 4, 6        // an instance cursor that wraps
	grpo.Policy.Optim.Warmup, grpo.Policy.Optim.Decay, grpo.Policy.Optim.MinLR = 1, 3, 1e-5 // a schedule
	return []resumeCase{
		{"ppo", flodialEasy, func(t *testing.T, task tasks.Task, p *model.Model) Trainer {
			tr, err := NewPPO(task, p, nil, ppo)
			require.NoError(t, err)
			return tr
		}},
		{"ppo-shared-critic", flodialEasy, func(t *testing.T, task tasks.Task, p *model.Model) Trainer {
			tr, err := NewPPO(task, p, nil, shared)
			require.NoError(t, err)
			return tr
		}},
		// The tiny policy's rewards on flodial-easy are all equal, so a
		// group baseline would give it no gradient: GRPO learns the bandit.
		{"grpo", func(testing.TB) tasks.Task { return newBandit(4) }, func(t *testing.T, task tasks.Task, p *model.Model) Trainer {
			tr, err := NewGRPO(task, p, grpo)
			require.NoError(t, err)
			return tr
		}},
		{"ppo-head-rows", flodialEasy, func(t *testing.T, task tasks.Task, p *model.Model) Trainer {
			tr, err := NewPPO(task, p, nil, heads)
			require.NoError(t, err)
			return tr
		}},
	}
}

// N updates in one go equal k updates, the state written, and a new
// trainer (on a policy of other weights) loaded from it that runs the
// other N − k: every metric but the timings bitwise, and the final
// weights bitwise, with an evaluation after each update on both paths.
func TestResumeIsBitwise(t *testing.T) {
	const N, k = 3, 1
	for _, c := range resumeCases() {
		t.Run(c.name, func(t *testing.T) {
			task := c.task(t)
			shared := c.name == "ppo-shared-critic"
			run := func(tr Trainer, from, to int, log *[]string) {
				for u := from; u < to; u++ {
					m, err := tr.Update()
					require.NoError(t, err)
					require.Positive(t, m.GradNorm, "update %d learns something", u)
					*log = append(*log, untimed(m))
					ec := EvalConfig{Split: tasks.Test, Episodes: 3, Seed: 1, Rollout: DefaultRolloutConfig()}
					res, err := Evaluate(tr.Policy(), task, ec)
					require.NoError(t, err)
					*log = append(*log, fmt.Sprintf("%+v", res.Summary))
				}
			}
			var straight, resumed []string
			a := c.new(t, task, tinyPolicy(t, task, 5, shared))
			defer a.Close()
			run(a, 0, N, &straight)

			dir := t.TempDir()
			b := c.new(t, task, tinyPolicy(t, task, 5, shared))
			run(b, 0, k, &resumed)
			saveState(t, b, dir)
			b.Close()

			r := c.new(t, task, tinyPolicy(t, task, 99, shared)) // other weights: all must come from the state
			defer r.Close()
			require.NoError(t, loadState(t, r, dir, k))
			assert.Equal(t, k, r.Updates())
			run(r, k, N, &resumed)

			assert.Equal(t, straight, resumed)
			pa, pr := a.Policy().Params.Params(), r.Policy().Params.Params()
			for i := range pa {
				require.Equal(t, pa[i].Data(), pr[i].Data(), pa[i].Name)
			}
		})
	}
}

// saveState writes tr's state into dir (WriteState).
func saveState(t *testing.T, tr Trainer, dir string) {
	_, err := tr.WriteState(dir, map[string]string{"run": "test"})
	require.NoError(t, err)
}

// loadState loads every file of dir into tr as the state of update
// (LoadState), as the run layer does from a checkpoint set.
func loadState(t *testing.T, tr Trainer, dir string, update int) error {
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, e := range entries {
		files[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
	}
	return tr.LoadState(dir, update, files)
}

// A state another trainer wrote (another algorithm, another set of
// models, another update) is refused with an error saying so, before
// anything changes.
func TestLoadRefusesAnotherTrainersState(t *testing.T) {
	c := resumeCases()[0]
	task := c.task(t)
	dir := t.TempDir()
	tr := c.new(t, task, tinyPolicy(t, task, 5, false))
	defer tr.Close()
	_, err := tr.Update()
	require.NoError(t, err)
	saveState(t, tr, dir)
	load := func(tr Trainer, update int) error {
		defer tr.Close()
		return loadState(t, tr, dir, update)
	}
	require.NoError(t, load(c.new(t, task, tinyPolicy(t, task, 5, false)), 1), "the state as written loads")
	assert.ErrorContains(t, load(c.new(t, task, tinyPolicy(t, task, 5, false)), 2), "not a trainer state of update 2")
	assert.ErrorContains(t, load(resumeCases()[2].new(t, task, tinyPolicy(t, task, 5, false)), 1), "grpo")
	require.NoError(t, os.Remove(filepath.Join(dir, RefFile)))
	assert.ErrorContains(t, load(c.new(t, task, tinyPolicy(t, task, 5, false)), 1), "needs")
}
