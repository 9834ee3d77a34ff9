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
	}
}

// N updates in one go equal k updates, a checkpoint set, and a new
// trainer (on a policy of other weights) restored from it that runs the
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
			require.NoError(t, b.SaveState(dir, map[string]string{"run": "test"}))
			b.Close()

			r := c.new(t, task, tinyPolicy(t, task, 99, shared)) // other weights: all must come from the set
			defer r.Close()
			m, err := r.RestoreState(dir)
			require.NoError(t, err)
			assert.Equal(t, k, m.Update)
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

// A set whose files disagree with the manifest (a file rewritten after
// it, as by a kill while saving; a file missing; a manifest naming a file
// of another update) is refused with an error saying so, and a set of
// another config is refused too.
func TestRestoreRefusesABadSet(t *testing.T) {
	c := resumeCases()[0]
	task := c.task(t)
	save := func(t *testing.T) string {
		dir := t.TempDir()
		tr := c.new(t, task, tinyPolicy(t, task, 5, false))
		defer tr.Close()
		_, err := tr.Update()
		require.NoError(t, err)
		require.NoError(t, tr.SaveState(dir, nil))
		return dir
	}
	restore := func(t *testing.T, dir string) error {
		tr := c.new(t, task, tinyPolicy(t, task, 5, false))
		defer tr.Close()
		_, err := tr.RestoreState(dir)
		return err
	}
	cases := []struct {
		name, want string
		spoil      func(t *testing.T, dir string)
	}{
		{"a file rewritten after the manifest", "disagrees with its manifest", func(t *testing.T, dir string) {
			other := c.new(t, task, tinyPolicy(t, task, 6, false))
			defer other.Close()
			require.NoError(t, other.Policy().Save(filepath.Join(dir, PolicyFile), nil))
		}},
		{"a file missing", "no such file", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, CriticFile)))
		}},
		{"no manifest", "no such file", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, ManifestFile)))
		}},
		{"a mixed manifest", "mixed", func(t *testing.T, dir string) {
			m, err := ReadManifest(dir)
			require.NoError(t, err)
			m.Files[1].Update = 7
			require.NoError(t, WriteJSON(filepath.Join(dir, ManifestFile), m))
		}},
		{"a file the trainer lacks", "needs", func(t *testing.T, dir string) {
			m, err := ReadManifest(dir)
			require.NoError(t, err)
			names := []string{}
			for _, e := range m.Files {
				if e.Name != RefFile {
					names = append(names, e.Name)
				}
			}
			require.NoError(t, writeManifest(dir, m.Update, nil, names))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := save(t)
			require.NoError(t, restore(t, dir), "the set as saved restores")
			tc.spoil(t, dir)
			err := restore(t, dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("another algorithm", func(t *testing.T) {
		dir := save(t)
		tr := resumeCases()[2].new(t, task, tinyPolicy(t, task, 5, false))
		defer tr.Close()
		_, err := tr.RestoreState(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "grpo")
	})
}

// A save killed at any point leaves a set to resume from: killed while it
// wrote the new set (NextSetDir without its manifest), the last set
// restores; killed while it moved the new set in (some files moved, the
// rest and the manifest still in NextSetDir), the new set restores.
func TestCheckpointSetSurvivesAKill(t *testing.T) {
	c := resumeCases()[0]
	task := c.task(t)
	for _, tc := range []struct {
		name  string
		moved int // files of the new set moved in before the kill; −1: its manifest not yet written
		want  int // the update that restores
	}{
		{"while writing the new set", -1, 1},
		{"before moving it in", 0, 2},
		{"while moving it in", 2, 2},
		{"after moving every file", 6, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, newer := t.TempDir(), t.TempDir()
			tr := c.new(t, task, tinyPolicy(t, task, 5, false))
			defer tr.Close()
			_, err := tr.Update()
			require.NoError(t, err)
			require.NoError(t, tr.SaveState(dir, nil)) // the last set: update 1
			_, err = tr.Update()
			require.NoError(t, err)
			require.NoError(t, tr.SaveState(newer, nil)) // the set the kill cut short: update 2

			// What the killed save left: NextSetDir holding the new set,
			// tc.moved of its files already over the last set's.
			next := filepath.Join(dir, NextSetDir)
			require.NoError(t, os.Mkdir(next, 0o755))
			m, err := ReadManifest(newer)
			require.NoError(t, err)
			require.Len(t, m.Files, 6, "policy, critic, reference, two optimisers, trainer.json")
			for i, e := range m.Files {
				to := next
				if i < tc.moved {
					to = dir
				}
				require.NoError(t, os.Rename(filepath.Join(newer, e.Name), filepath.Join(to, e.Name)))
			}
			if tc.moved >= 0 {
				require.NoError(t, os.Rename(filepath.Join(newer, ManifestFile), filepath.Join(next, ManifestFile)))
			}

			r := c.new(t, task, tinyPolicy(t, task, 99, false))
			defer r.Close()
			got, err := r.RestoreState(dir)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Update)
			assert.Equal(t, tc.want, r.Updates())
			assert.NoDirExists(t, next, "the half-done save is finished or discarded")
			if tc.want == 2 {
				pa, pr := tr.Policy().Params.Params(), r.Policy().Params.Params()
				for i := range pa {
					require.Equal(t, pa[i].Data(), pr[i].Data(), pa[i].Name)
				}
			}
		})
	}
}
