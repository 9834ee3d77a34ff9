package rl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func banditGRPOConfig(objective string) GRPOConfig {
	c := DefaultGRPOConfig()
	if objective == "gspo" {
		c = DefaultGSPOConfig()
	}
	c.Prompts, c.GroupSize = 8, 4
	c.Rollout.Workers = 2
	c.Policy.MiniBatch = 16
	c.Policy.Optim.LR = 3e-3
	return c
}

func TestGRPOLearnsBandit(t *testing.T) {
	task := newBandit(4)
	policy := tinyPolicy(t, task, 5, false)
	g, err := NewGRPO(task, policy, banditGRPOConfig("grpo"))
	require.NoError(t, err)
	learnsBandit(t, g, policy, task, 100)
}

func TestGSPOLearnsBandit(t *testing.T) {
	task := newBandit(4)
	policy := tinyPolicy(t, task, 6, false)
	g, err := NewGRPO(task, policy, banditGRPOConfig("gspo"))
	require.NoError(t, err)
	learnsBandit(t, g, policy, task, 200)
}

// An update plays G rollouts of each of its prompts, one group id per
// prompt; successive updates take the next instances, cycling through a
// fixed training set when Instances is set.
func TestGRPOEpisodeLayout(t *testing.T) {
	task := newBandit(4)
	cfg := banditGRPOConfig("grpo")
	cfg.Prompts, cfg.GroupSize = 3, 2
	g, err := NewGRPO(task, tinyPolicy(t, task, 1, false), cfg)
	require.NoError(t, err)
	defer g.Close()
	idx := func(specs []EpisodeSpec) (ix, gr []int) {
		for _, s := range specs {
			assert.Equal(t, tasks.Train, s.Split)
			ix, gr = append(ix, s.Index), append(gr, s.Group)
		}
		return ix, gr
	}
	ix, gr := idx(g.specs(0))
	assert.Equal(t, []int{0, 0, 1, 1, 2, 2}, ix)
	assert.Equal(t, []int{0, 0, 1, 1, 2, 2}, gr)
	ix, _ = idx(g.specs(1))
	assert.Equal(t, []int{3, 3, 4, 4, 5, 5}, ix)
	g.spec.instances = 4
	ix, _ = idx(g.specs(1))
	assert.Equal(t, []int{3, 3, 0, 0, 1, 1}, ix)
}
