package rl

import (
	"fmt"
	"math"
	"math/rand/v2"

	"arew/model"
	"arew/tasks"
)

// liveEpisode is one live episode of a rollout: the environment, the recorder
// of its trajectory, its own generator, the turn being sampled, and the
// tokens the decoder must read before the next sample. A worker keeps one
// per decoder slot and restarts it for each episode the slot plays, so its
// buffers and generator are reused (start).
type liveEpisode struct {
	index   int
	ep      tasks.Episode
	rec     recorder
	pcg     rand.PCG
	rng     *rand.Rand // over pcg
	maxLen  int
	turn    tasks.Turn
	toks    []int32   // this turn's sampled tokens
	logp    []float32 // and their log π
	pending []int32   // tokens to feed before the next sample
	length  int       // tokens in the stream so far, pending and this turn's included
	// actions holds every action given to the environment in this episode,
	// one after the other: an environment may keep the slice it was given,
	// so none is overwritten before the episode is over.
	actions []tasks.Token
	// Constrained decoding (mask.go): the episode as a MaskedEpisode (nil
	// when the task is not masked), the tokens allowed next, the set each
	// token of this turn was sampled under, and the masked row's memory.
	masked      MaskedEpisode
	allowed     []tasks.Token
	turnAllowed [][]tasks.Token
	scratch     []float32
}

// start makes instance spec of task, recorded into tr (emptied; nil: a new
// trajectory), with the episode's generator seeded by deriveSeed(seed,
// streamRollout, update, index) as derive would seed it, and queues its
// prompt.
//
// A task that can recycle an episode (tasks.Recycler) makes the new one in
// the memory of the slot's last: that one is over, and nothing it returned
// is still in use (the recorder and pending copy what they keep). Its steps
// then carry no Text, which a rollout never reads.
func (e *liveEpisode) start(task tasks.Task, spec EpisodeSpec, index int, seed uint64, update, maxLen int, tr *Trajectory) error {
	var ep tasks.Episode
	var err error
	if rc, ok := task.(tasks.Recycler); ok {
		ep, err = rc.Recycle(e.ep, spec.Split, spec.Index)
	} else {
		ep, err = task.NewEpisode(spec.Split, spec.Index)
	}
	e.ep = nil // a failed Recycle may have spent it
	if err != nil {
		return err
	}
	prompt := ep.Prompt()
	if len(prompt) >= maxLen {
		return fmt.Errorf("the prompt of %d tokens leaves no room for an agent token under max_len %d", len(prompt), maxLen)
	}
	if tr == nil {
		tr = &Trajectory{Tokens: make([]int32, 0, maxLen), Agent: make([]bool, 0, maxLen), Logp: make([]float32, 0, maxLen)}
	}
	tr.reset()
	tr.Group = spec.Group
	if e.masked, err = maskedEpisode(task, ep); err != nil {
		return err
	}
	e.rec = recorder{tr: tr, masked: e.masked != nil}
	e.rec.observe(prompt)
	h := deriveSeed(seed, streamRollout, uint64(update), uint64(index))
	e.pcg.Seed(h, mix64(h))
	if e.rng == nil {
		e.rng = rand.New(&e.pcg)
	}
	e.index, e.ep, e.maxLen, e.length = index, ep, maxLen, len(prompt)
	e.toks, e.logp, e.turnAllowed = e.toks[:0], e.logp[:0], e.turnAllowed[:0]
	e.pending = append(e.pending[:0], prompt...)
	if cap(e.actions) < maxLen {
		e.actions = make([]tasks.Token, 0, maxLen) // agent tokens never pass maxLen
	}
	e.actions = e.actions[:0]
	return e.nextTurn()
}

func (e *liveEpisode) nextTurn() error {
	e.turn = e.ep.Next()
	if e.turn.MaxTokens < 1 {
		return fmt.Errorf("the task asks for a turn of at most %d tokens", e.turn.MaxTokens)
	}
	if e.masked != nil {
		e.allowed = e.masked.Allowed(e.toks)
	}
	return nil
}

// sample draws the next token from the decoder's logits row for this
// episode, under its mask when the task is masked.
func (e *liveEpisode) sample(smp *model.Sampler, row []float32) (model.Sampled, error) {
	var allowed []tasks.Token
	if e.masked != nil {
		allowed = e.allowed
	}
	return sampleAllowed(smp, e.rng, row, allowed, &e.scratch)
}

// take records one sampled token and advances the episode: the turn ends
// at EOT or at the turn's MaxTokens, and then the environment judges it
// and replies. It reports whether the episode is over (finished or
// truncated); otherwise pending holds what the decoder reads next.
func (e *liveEpisode) take(tok int32, logp float64) (bool, error) {
	e.toks = append(e.toks, tok)
	e.logp = append(e.logp, float32(logp))
	if e.masked != nil {
		e.turnAllowed = append(e.turnAllowed, e.allowed)
	}
	e.length++
	eot := tok == tasks.EOT
	if !eot && len(e.toks) < e.turn.MaxTokens {
		if e.length >= e.maxLen {
			// Cut short mid-turn: the step is recorded, unjudged (z = 0).
			e.rec.act(e.toks, e.logp, e.turnAllowed, tasks.Step{Turn: len(e.ep.Steps()), Kind: e.turn.Kind, Final: e.turn.Final})
			e.finish(true)
			return true, nil
		}
		if e.masked != nil {
			e.allowed = e.masked.Allowed(e.toks)
		}
		e.pending = append(e.pending[:0], tok)
		return false, nil
	}
	action := e.toks
	if eot {
		action = action[:len(action)-1]
	}
	n := len(e.actions)
	e.actions = append(e.actions, action...)
	obs, st, err := e.ep.Step(e.actions[n:len(e.actions):len(e.actions)])
	if err != nil {
		return false, err
	}
	e.rec.act(e.toks, e.logp, e.turnAllowed, st)
	e.rec.observe(obs)
	e.length += len(obs)
	e.toks, e.logp, e.turnAllowed = e.toks[:0], e.logp[:0], e.turnAllowed[:0]
	if e.ep.Done() {
		e.finish(false)
		return true, nil
	}
	if e.length >= e.maxLen {
		e.finish(true)
		return true, nil
	}
	if err := e.nextTurn(); err != nil {
		return false, err
	}
	e.pending = append(append(e.pending[:0], tok), obs...)
	return false, nil
}

// finish records the outcome (or the truncation penalty) and drops any
// observation tokens past maxLen (agent tokens never pass it).
func (e *liveEpisode) finish(truncated bool) {
	tr := e.rec.tr
	if truncated {
		tr.Truncated = true
		tr.Reward = 0
		tr.Measures = truncatedMeasures(e.ep.Steps())
	} else {
		e.rec.finish(e.ep)
	}
	if n := len(tr.Tokens); n > e.maxLen {
		tr.Tokens, tr.Agent, tr.Logp = tr.Tokens[:e.maxLen], tr.Agent[:e.maxLen], tr.Logp[:e.maxLen]
		if len(tr.Allowed) > 0 {
			tr.Allowed = tr.Allowed[:e.maxLen]
		}
	}
}

// truncatedMeasures scores an episode that never finished: reward 0, not a
// success, the counts of its judged turns, NaN for the rest.
func truncatedMeasures(steps []tasks.Step) tasks.Measures {
	nan := math.NaN()
	m := tasks.Measures{ASProxy: nan, BTProxy: nan, IAS: nan, CBT: nan, Evidence: nan, Turns: len(steps)}
	for _, s := range steps {
		if s.Malformed {
			m.Malformed++
		}
		if s.Repeat {
			m.Repeats++
		}
	}
	return m
}
