package act

import (
	"context"
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// GRPOStage is a GRPO stage of the pipeline: Updates updates of rl's GRPO
// trainer, each on GRPO.Prompts examples × GRPO.GroupSize samples, cycling
// through the training examples in one order shuffled by GRPO.Seed. (The
// datasets come grouped by game and state; in that order consecutive
// updates would each fit one game and undo the last.)
//
// Every example is one prompt answered once, a few tokens against a state
// of hundreds, so the stage shares each group's prompt in the training
// graph (rl.GRPOConfig.SharePrompt: the prompt once, its G answers after
// it; the same loss and gradient to float32 rounding) whenever the whole
// batch is one minibatch, as in DefaultGRPOStage. PlainPrompts turns that
// off: every answer after its own copy of the prompt, rl's plain path.
type GRPOStage struct {
	Updates      int           `json:"updates"`
	GRPO         rl.GRPOConfig `json:"grpo"`
	Shaping      Shaping       `json:"shaping"`
	PlainPrompts bool          `json:"plain_prompts,omitempty"`
}

func (s GRPOStage) run(ctx context.Context, name string, init *model.Model, task tasks.Task, n int) (*model.Model, []rl.Metrics, error) {
	if s.Updates < 0 {
		return nil, nil, fmt.Errorf("%s: updates must be ≥ 0, got %d", name, s.Updates)
	}
	m, err := init.Clone()
	if err != nil {
		return nil, nil, err
	}
	if task.MaxTokens() > m.Config.Context {
		return nil, nil, fmt.Errorf("%s: prompts of up to %d tokens with their answer exceed the context %d", name, task.MaxTokens(), m.Config.Context)
	}
	cfg := s.GRPO
	cfg.Instances = n
	cfg.Rollout.MaxLen = task.MaxTokens()
	cfg.SharePrompt = cfg.SharePrompt || (!s.PlainPrompts && cfg.Policy.MiniBatch >= cfg.Prompts*cfg.GroupSize)
	g, err := rl.NewGRPO(task, m, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer g.Close()
	var ms []rl.Metrics
	for range s.Updates {
		if err := ctx.Err(); err != nil {
			return nil, ms, err
		}
		mt, err := g.Update()
		if err != nil {
			return nil, ms, fmt.Errorf("%s: %w", name, err)
		}
		ms = append(ms, mt)
	}
	return m, ms, nil
}

// TrainACT is critical training: GRPO of a copy of init on the choice task
// of D_critic (held-out examples may be empty). Each update's Success is
// the share of sampled choices that picked the expert's action.
func TrainACT(ctx context.Context, init *model.Model, env *Env, format ChoiceFormat, data []CriticExample, stage GRPOStage) (*model.Model, []rl.Metrics, error) {
	task, err := ChoiceTask(env, format, stage.Shaping, shuffled(data, stage.GRPO.Seed), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("act: %w", err)
	}
	return stage.run(ctx, "act", init, task, len(data))
}

// TrainRL is RL action training: GRPO of a copy of init generating the
// next action at the expert states under decoding d, rewarded for the
// expert's action with the stage's shaping (a contextual bandit over the
// states). Under the trie or the grammar the rollouts sample from the
// policy renormalised over the allowed tokens and the GRPO ratio and
// gradient are taken under the same mask (rl.MaskedTask).
func TrainRL(ctx context.Context, init *model.Model, env *Env, d Decoding, pairs []textworld.Pair, maxAction int, stage GRPOStage) (*model.Model, []rl.Metrics, error) {
	task, err := ActionTask(env, stage.Shaping, d, maxAction, shuffled(pairs, stage.GRPO.Seed), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("rl: %w", err)
	}
	return stage.run(ctx, "rl", init, task, len(pairs))
}

// shuffled is a copy of xs in an order drawn from seed.
func shuffled[T any](xs []T, seed uint64) []T {
	out := make([]T, len(xs))
	for i, j := range rand.New(rand.NewPCG(seed, 0x5bd1e995)).Perm(len(xs)) {
		out[i] = xs[j]
	}
	return out
}
