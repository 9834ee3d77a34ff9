package rl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"arew/model"
	"arew/tasks"
)

// EpisodeSpec names one episode to play: an instance of a split, and the
// group (prompt) it belongs to for GRPO's baseline.
type EpisodeSpec struct {
	Split tasks.Split
	Index int
	Group int
}

// RolloutStats counts the work of one Play.
type RolloutStats struct {
	Episodes  int
	Truncated int
	Tokens    int     // positions run through the decoders (prompts, observations, sampled tokens)
	Sampled   int     // agent tokens sampled
	Seconds   float64 // wall time of Play
}

// Roller plays episodes of a task with a policy: the rollout half of every
// trainer, and evaluation. It keeps one decoder per worker between calls,
// and each worker's live episodes (one per decoder slot, their buffers and
// generators reused from episode to episode).
type Roller struct {
	policy   *model.Model
	task     tasks.Task
	cfg      RolloutConfig
	maxLen   int
	workers  int
	decoders []*model.Decoder
	episodes [][]liveEpisode // per worker, per decoder slot
}

// NewRoller checks that the policy fits the task (its vocabulary covers the
// task's, its context holds MaxLen) and prepares the workers.
func NewRoller(policy *model.Model, task tasks.Task, cfg RolloutConfig) (*Roller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := policy.Config
	if !c.LMHead {
		return nil, fmt.Errorf("rollout: the policy has no LM head")
	}
	if v := task.Vocab().Size(); c.Vocab < v {
		return nil, fmt.Errorf("rollout: the policy's vocabulary (%d) is smaller than task %s's (%d)", c.Vocab, task.Name(), v)
	}
	maxLen := cfg.MaxLen
	if maxLen == 0 {
		maxLen = min(task.MaxTokens(), c.Context)
	}
	if maxLen > c.Context {
		return nil, fmt.Errorf("rollout: max_len %d exceeds the policy's context %d", maxLen, c.Context)
	}
	if maxLen < 2 {
		return nil, fmt.Errorf("rollout: max_len %d leaves no room for a prompt and an agent token", maxLen)
	}
	w := cfg.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return &Roller{policy: policy, task: task, cfg: cfg, maxLen: maxLen, workers: w,
		decoders: make([]*model.Decoder, w), episodes: make([][]liveEpisode, w)}, nil
}

// MaxLen is the longest token stream an episode may have.
func (r *Roller) MaxLen() int { return r.maxLen }

// Play plays every spec with the current weights and returns the
// trajectories in spec order.
//
// Episode i samples from its own generator derived from (seed, update, i),
// and the decoder computes each sequence's rows independently of the other
// sequences in its batch, so the trajectories are bitwise the same for any
// Workers and Slots (TestRolloutIndependentOfWorkers).
//
// Each turn is sampled token by token until EOT or the turn's MaxTokens
// (an unfinished turn goes to Step as it is, and the env judges it); the
// step is recorded with the critique and the sampled tokens' log π.
//
// Truncation, a defined penalty: if the stream reaches MaxLen tokens before
// the episode is over, the episode stops there. The trajectory is marked
// Truncated, its reward is 0, its Measures are Reward 0, Success false,
// the counts of the judged turns, and NaN for every other measure (the
// episode was never scored). A turn cut short is recorded as a step with
// critique 0 without calling Step; observation tokens past MaxLen are
// dropped. With the default MaxLen (the task's bound) no episode whose
// turns respect Turn.MaxTokens is ever truncated.
func (r *Roller) Play(specs []EpisodeSpec, seed uint64, update int) ([]*Trajectory, RolloutStats, error) {
	return r.PlayInto(specs, seed, update, nil)
}

// PlayInto is Play recording into the trajectories of spare (emptied
// first, their memory kept; past its end, new ones) and returning them:
// how a trainer reuses the last update's trajectories, which it no longer
// needs, instead of allocating new ones. The trajectories are the same as
// Play's (TestPlayIntoMatchesPlay).
func (r *Roller) PlayInto(specs []EpisodeSpec, seed uint64, update int, spare []*Trajectory) ([]*Trajectory, RolloutStats, error) {
	start := time.Now()
	out := make([]*Trajectory, len(specs))
	copy(out, spare)
	stats := make([]RolloutStats, r.workers)
	errs := make([]error, r.workers)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range min(r.workers, len(specs)) {
		if r.decoders[w] == nil {
			d, err := r.policy.NewDecoder(r.cfg.Slots)
			if err != nil {
				return nil, RolloutStats{}, fmt.Errorf("rollout: %w", err)
			}
			r.decoders[w] = d
			r.episodes[w] = make([]liveEpisode, d.MaxSeqs())
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[w], errs[w] = r.work(r.decoders[w], r.episodes[w], specs, &next, &failed, out, seed, update)
			if errs[w] != nil {
				failed.Store(true)
			}
		}()
	}
	wg.Wait()
	var total RolloutStats
	for w := range stats {
		if errs[w] != nil {
			return nil, RolloutStats{}, errs[w]
		}
		total.Episodes += stats[w].Episodes
		total.Truncated += stats[w].Truncated
		total.Tokens += stats[w].Tokens
		total.Sampled += stats[w].Sampled
	}
	total.Seconds = time.Since(start).Seconds()
	return out, total, nil
}

// work is one worker: it keeps up to Slots episodes live in its decoder
// (eps, one per slot), pulls the next episode index when a slot frees up,
// and advances all live episodes by one sampled token per decoder call.
// Episode i is recorded into out[i] when it holds a trajectory.
func (r *Roller) work(d *model.Decoder, eps []liveEpisode, specs []EpisodeSpec, next *atomic.Int64, failed *atomic.Bool,
	out []*Trajectory, seed uint64, update int) (RolloutStats, error) {
	var st RolloutStats
	d.ResetAll()
	smp := r.cfg.Sampler.sampler()
	slots := make([]*liveEpisode, d.MaxSeqs())
	V := r.policy.Config.Vocab
	var seqs []int
	var chunks [][]int32
	var live []*liveEpisode
	drained := false
	for !failed.Load() {
		for s := range slots {
			if slots[s] != nil || drained {
				continue
			}
			i := int(next.Add(1) - 1)
			if i >= len(specs) {
				drained = true
				break
			}
			e := &eps[s]
			if err := e.start(r.task, specs[i], i, seed, update, r.maxLen, out[i]); err != nil {
				return st, fmt.Errorf("rollout: episode %d: %w", i, err)
			}
			if err := d.Reset(s); err != nil {
				return st, err
			}
			slots[s] = e
		}
		seqs, chunks, live = seqs[:0], chunks[:0], live[:0]
		for s, e := range slots {
			if e != nil {
				seqs, chunks, live = append(seqs, s), append(chunks, e.pending), append(live, e)
				st.Tokens += len(e.pending)
			}
		}
		if len(live) == 0 {
			return st, nil
		}
		logits, err := d.Append(seqs, chunks)
		if err != nil {
			return st, fmt.Errorf("rollout: %w", err)
		}
		for k, e := range live {
			smpl, err := e.sample(smp, logits[k*V:(k+1)*V])
			if err != nil {
				return st, fmt.Errorf("rollout: episode %d: %w", e.index, err)
			}
			st.Sampled++
			done, err := e.take(smpl.Token, smpl.LogProb)
			if err != nil {
				return st, fmt.Errorf("rollout: episode %d: %w", e.index, err)
			}
			if done {
				out[e.index] = e.rec.tr
				st.Episodes++
				if e.rec.tr.Truncated {
					st.Truncated++
				}
				slots[seqs[k]] = nil
			}
		}
	}
	return st, nil
}

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

// Step is one agent turn inside a trajectory: the half-open span of its
// tokens in Trajectory.Tokens (the agent's tokens of the turn, EOT
// included), its kind, and the environment's critique. TokenZ, when the
// task judges the turn token by token (tasks.Step.TokenZ), holds one
// critique per token from Start; the batch then makes each of those
// tokens a step of its own for AREW.
type Step struct {
	Start, End int
	Kind       tasks.Kind
	Z          int8
	TokenZ     []int8
	Final      bool
	Malformed  bool
}

// Trajectory is one played episode as the trainers see it: a single token
// sequence in which the agent's tokens are marked.
//
//	Tokens (L): prompt, then per turn the agent's tokens and the observation
//	Agent  (L): Agent[t] — token t was sampled by the policy (trained)
//	Logp   (L): the sampling log-prob of each agent token (0 elsewhere)
//	Allowed (L or empty): under constrained decoding (MaskedTask), the
//	         tokens the agent was allowed at each agent token (nil
//	         elsewhere, and nil for an unconstrained token); empty for a
//	         task that is not masked
type Trajectory struct {
	Tokens   []int32
	Agent    []bool
	Logp     []float32
	Allowed  [][]tasks.Token
	Steps    []Step
	Reward   float64        // the outcome reward
	Measures tasks.Measures // the episode's measures (success, proxies, I_AS, …)
	// Group is the index of the prompt (instance) this trajectory was sampled
	// for within its batch: GRPO compares trajectories of the same group.
	Group int
	// Truncated: the context filled up before the episode ended.
	Truncated bool
}

// reset empties t for a new episode, keeping its slices' memory.
func (t *Trajectory) reset() {
	*t = Trajectory{Tokens: t.Tokens[:0], Agent: t.Agent[:0], Logp: t.Logp[:0], Allowed: t.Allowed[:0], Steps: t.Steps[:0]}
}

// Validate checks the invariants the packing relies on.
func (t *Trajectory) Validate() error {
	L := len(t.Tokens)
	if L < 2 {
		return fmt.Errorf("trajectory: %d tokens; need a prompt and at least one agent token", L)
	}
	if len(t.Agent) != L || len(t.Logp) != L {
		return fmt.Errorf("trajectory: %d tokens but %d agent flags and %d log-probs", L, len(t.Agent), len(t.Logp))
	}
	if len(t.Allowed) != 0 && len(t.Allowed) != L {
		return fmt.Errorf("trajectory: %d tokens but %d allowed sets", L, len(t.Allowed))
	}
	if t.Agent[0] {
		return fmt.Errorf("trajectory: token 0 is marked as the agent's; the prompt comes first")
	}
	prev := 0
	for i, s := range t.Steps {
		if s.Start < prev || s.End < s.Start || s.End > L {
			return fmt.Errorf("trajectory: step %d spans [%d, %d), want ordered, non-overlapping spans inside [1, %d)", i, s.Start, s.End, L)
		}
		if s.Start < 1 {
			return fmt.Errorf("trajectory: step %d starts at token 0", i)
		}
		if s.Z < -1 || s.Z > 1 {
			return fmt.Errorf("trajectory: step %d has critique %d", i, s.Z)
		}
		if len(s.TokenZ) > s.End-s.Start {
			return fmt.Errorf("trajectory: step %d has %d per-token critiques for %d tokens", i, len(s.TokenZ), s.End-s.Start)
		}
		for _, z := range s.TokenZ {
			if z < -1 || z > 1 {
				return fmt.Errorf("trajectory: step %d has per-token critique %d", i, z)
			}
		}
		for p := s.Start; p < s.End; p++ {
			if !t.Agent[p] {
				return fmt.Errorf("trajectory: step %d covers token %d, which is not the agent's", i, p)
			}
		}
		prev = s.End
	}
	return nil
}

// NumAgentTokens counts the trained tokens.
func (t *Trajectory) NumAgentTokens() int {
	n := 0
	for _, a := range t.Agent {
		if a {
			n++
		}
	}
	return n
}

// recorder builds a Trajectory while an episode is played: the prompt, then
// per turn the agent's tokens plus EOT (marked as the agent's, one Step)
// and the observation.
type recorder struct {
	tr     *Trajectory
	masked bool // constrained decoding: keep Trajectory.Allowed
}

func newRecorder(ep tasks.Episode) *recorder {
	r := &recorder{tr: &Trajectory{}}
	r.observe(ep.Prompt())
	return r
}

// observe appends environment tokens.
func (r *recorder) observe(obs []tasks.Token) {
	for _, t := range obs {
		r.tr.Tokens = append(r.tr.Tokens, t)
		r.tr.Agent = append(r.tr.Agent, false)
		r.tr.Logp = append(r.tr.Logp, 0)
		if r.masked {
			r.tr.Allowed = append(r.tr.Allowed, nil)
		}
	}
}

// act appends one agent turn (tokens as generated, EOT included when the
// agent emitted it) with their log-probs and, when masked, their allowed
// sets (copied), and the judged step.
func (r *recorder) act(tokens []tasks.Token, logp []float32, allowed [][]tasks.Token, st tasks.Step) {
	start := len(r.tr.Tokens)
	for i, t := range tokens {
		r.tr.Tokens = append(r.tr.Tokens, t)
		r.tr.Agent = append(r.tr.Agent, true)
		lp := float32(0)
		if logp != nil {
			lp = logp[i]
		}
		r.tr.Logp = append(r.tr.Logp, lp)
		if r.masked {
			// A trajectory recorded over keeps its earlier sets' memory.
			var mem []tasks.Token
			if k := len(r.tr.Allowed); k < cap(r.tr.Allowed) {
				mem = r.tr.Allowed[:k+1][k][:0]
			}
			var set []tasks.Token
			if allowed != nil && len(allowed[i]) > 0 {
				set = append(mem, allowed[i]...)
			}
			r.tr.Allowed = append(r.tr.Allowed, set)
		}
	}
	var tokenZ []int8 // a task's per-token critiques; Trajectory.Validate checks their count
	if len(st.TokenZ) > 0 {
		// A trajectory recorded over (Trajectory.reset) still holds its
		// earlier steps past its length: the step recorded at this index
		// last time lends its array.
		var mem []int8
		if i := len(r.tr.Steps); i < cap(r.tr.Steps) {
			mem = r.tr.Steps[:i+1][i].TokenZ[:0]
		}
		tokenZ = append(mem, st.TokenZ...)
	}
	r.tr.Steps = append(r.tr.Steps, Step{Start: start, End: len(r.tr.Tokens), Kind: st.Kind, Z: st.Z,
		TokenZ: tokenZ, Final: st.Final, Malformed: st.Malformed})
}

// finish records the outcome.
func (r *recorder) finish(ep tasks.Episode) *Trajectory {
	m := ep.Measures()
	r.tr.Reward = m.Reward
	r.tr.Measures = m
	return r.tr
}
