package act

import (
	"context"
	"fmt"
	"math"
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
//
// Actor (the ACT stage only; nil: none) mixes an SFT term on the actor's
// own prompt into the stage (ActorTerm).
type GRPOStage struct {
	Updates      int           `json:"updates"`
	GRPO         rl.GRPOConfig `json:"grpo"`
	Shaping      Shaping       `json:"shaping"`
	PlainPrompts bool          `json:"plain_prompts,omitempty"`
	Actor        *ActorTerm    `json:"actor,omitempty"`
}

// ACTExtras is what TrainACTWith takes beside TrainACT's arguments.
type ACTExtras struct {
	// Pairs, Decoding and MaxAction give the actor term's states and how
	// ActorAnchor samples at them (needed when the stage has an Actor).
	Pairs     []textworld.Pair
	Decoding  Decoding
	MaxAction int
	// Each, if not nil, is called after every update (its actor steps
	// included) with the update's number from 1, the model being trained
	// and the actor term's mean loss (NaN without one); an error it
	// returns ends the stage.
	Each func(update int, m *model.Model, actorLoss float64) error
}

// actorInput is what s.Actor trains on: its SFT examples (ActorData), or
// the KL anchor's states (klStates); both nil without a term.
type actorInput struct {
	data []*rl.Trajectory
	kl   []klState
}

// run trains a copy of init on task for s.Updates GRPO updates; with
// actor.data each update is followed by the actor term's steps, with
// actor.kl every GRPO step's loss has the KL anchor (actorKL, its π_start
// the copy before the first update), and each (if not nil) is called
// after every update with the term's mean loss (the KL anchor's: its mean
// KL, without β).
func (s GRPOStage) run(ctx context.Context, name string, init *model.Model, task tasks.Task, n int, in actorInput,
	each func(update int, m *model.Model, actorLoss float64) error) (*model.Model, []rl.Metrics, error) {
	if s.Updates < 0 {
		return nil, nil, fmt.Errorf("%s: updates must be ≥ 0, got %d", name, s.Updates)
	}
	m, err := init.Clone()
	if err != nil {
		return nil, nil, err
	}
	var actor *actorStepper
	if in.data != nil {
		if actor, err = newActorStepper(*s.Actor, m, in.data, s.GRPO.Policy.Optim.LR, s.GRPO.Seed); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		defer actor.Close()
	}
	var kl *actorKL
	if in.kl != nil {
		if kl, err = newActorKL(m, in.kl, s.Actor.Beta, s.Actor.MiniBatch, s.GRPO.Seed); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		defer kl.Close()
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
	if kl != nil {
		g.SetExtraLoss(kl)
	}
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
		actorLoss := math.NaN()
		if actor != nil {
			if actorLoss, err = actor.step(); err != nil {
				return nil, ms, fmt.Errorf("%s: %w", name, err)
			}
		}
		if kl != nil {
			actorLoss = kl.Mean()
		}
		if each != nil {
			if err := each(len(ms), m, actorLoss); err != nil {
				return nil, ms, err
			}
		}
	}
	return m, ms, nil
}

// TrainACT is critical training: GRPO of a copy of init on the choice task
// of D_critic (held-out examples may be empty). Each update's Success is
// the share of sampled choices that picked the expert's action.
func TrainACT(ctx context.Context, init *model.Model, env *Env, format ChoiceFormat, data []CriticExample, stage GRPOStage) (*model.Model, []rl.Metrics, error) {
	return TrainACTWith(ctx, init, env, format, data, stage, ACTExtras{})
}

// TrainACTWith is TrainACT with the stage's actor term (stage.Actor, on
// x's pairs) and a hook after every update (x.Each).
func TrainACTWith(ctx context.Context, init *model.Model, env *Env, format ChoiceFormat, data []CriticExample, stage GRPOStage, x ACTExtras) (*model.Model, []rl.Metrics, error) {
	task, err := ChoiceTask(env, format, stage.Shaping, shuffled(data, stage.GRPO.Seed), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("act: %w", err)
	}
	var in actorInput
	if stage.Actor != nil {
		if err := stage.Actor.Validate(); err != nil {
			return nil, nil, fmt.Errorf("act: %w", err)
		}
		if len(x.Pairs) == 0 {
			return nil, nil, fmt.Errorf("act: the actor term needs the expert pairs")
		}
		if stage.Actor.Source == ActorKL {
			if x.Decoding != DecodeTrie {
				return nil, nil, fmt.Errorf("act: the KL anchor is over the trie's commands; the run decodes with %v", x.Decoding)
			}
			if in.kl, err = klStates(env, x.Pairs, x.MaxAction); err != nil {
				return nil, nil, fmt.Errorf("act: %w", err)
			}
		} else {
			rng := rand.New(rand.NewPCG(stage.GRPO.Seed, 0xa2c4))
			if in.data, err = ActorData(*stage.Actor, env, x.Decoding, init, x.Pairs, x.MaxAction, rng); err != nil {
				return nil, nil, fmt.Errorf("act: %w", err)
			}
		}
	}
	return stage.run(ctx, "act", init, task, len(data), in, x.Each)
}

// TrainRL is RL action training: GRPO of a copy of init generating the
// next action at the expert states under decoding d, rewarded for the
// expert's action with the stage's shaping (a contextual bandit over the
// states). Under the trie or the grammar the rollouts sample from the
// policy renormalised over the allowed tokens and the GRPO ratio and
// gradient are taken under the same mask (rl.MaskedTask).
func TrainRL(ctx context.Context, init *model.Model, env *Env, d Decoding, pairs []textworld.Pair, maxAction int, stage GRPOStage) (*model.Model, []rl.Metrics, error) {
	if stage.Actor != nil {
		return nil, nil, fmt.Errorf("rl: the actor term is the ACT stage's only")
	}
	task, err := ActionTask(env, stage.Shaping, d, maxAction, shuffled(pairs, stage.GRPO.Seed), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("rl: %w", err)
	}
	return stage.run(ctx, "rl", init, task, len(pairs), actorInput{}, nil)
}

// shuffled is a copy of xs in an order drawn from seed.
func shuffled[T any](xs []T, seed uint64) []T {
	out := make([]T, len(xs))
	for i, j := range rand.New(rand.NewPCG(seed, 0x5bd1e995)).Perm(len(xs)) {
		out[i] = xs[j]
	}
	return out
}
