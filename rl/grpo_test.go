package rl

import (
	"testing"

	"github.com/stretchr/testify/require"
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
