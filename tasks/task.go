package tasks

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
)

// Kind says which of the two decisions of active reasoning a step is.
type Kind uint8

const (
	// AS is action selection: a query, a question, a tool call, a message.
	AS Kind = iota
	// BT is belief tracking: a stated belief (a guess) or the final answer.
	BT
)

func (k Kind) String() string {
	if k == AS {
		return "AS"
	}
	return "BT"
}

// Turn is what the environment expects from the agent next.
type Turn struct {
	Kind Kind
	// Final marks the last turn, whose content is the answer that is scored.
	Final bool
	// MaxTokens bounds the agent's tokens for this turn, EOT included. The
	// rollout stops sampling there; an unfinished turn is passed to Step as
	// it is and is judged malformed if it does not parse.
	MaxTokens int
}

// Step is the environment's judgement of one agent turn.
type Step struct {
	Turn  int  // 0-based index of the turn within the episode
	Kind  Kind // AS or BT
	Final bool // the final answer turn
	// Z is the directional critique under the task's configured rules:
	// −1, 0 or +1 (docs/arew.md §4).
	Z int8
	// TokenZ, when set, holds one critique per token of the action (the
	// turn's tokens without EOT): a rule that judges each part of the move
	// on its own, e.g. each fault's level of a belief (flodial's
	// "per-fault" critiques). AREW then counts each token as a step of its
	// own with its critique (docs/arew.md §4, "Per-fault critiques"); Z
	// still summarises the turn for logs and proxies.
	TokenZ []int8
	// Malformed: the tokens did not parse into an action. Such a step gets
	// Z = −1, consumes its turn, and the reply says so (a defined penalty).
	Malformed bool
	// Repeat: a query that was already asked (gets its own reply token,
	// distinct from a genuine "Unknown").
	Repeat bool
	// TruthMass is Ψ(b) for BT steps: the mass the agent's stated belief puts
	// on the hidden truth after this step (PE: a success-region mass or
	// cosine, as the task documents). NaN for AS steps.
	TruthMass float64
	// Text is a human-readable rendering of the parsed action, for logs.
	Text string
}

// Measures are the per-episode quantities a run reports (docs/arew.md §3–4).
// Averaged over episodes they give the figures' curves.
type Measures struct {
	Reward  float64 // the outcome reward
	Success bool    // the binary outcome (reward ≥ the task's success level)
	// ASProxy is the fraction of AS steps with critique +1 (NaN without AS steps).
	ASProxy float64
	// BTProxy is the mean per-round improvement of the belief potential on the
	// agent's own stated beliefs (NaN for tasks without beliefs).
	BTProxy float64
	// IAS is Ψ(b̄_H) − Ψ(b̄_0): the gain in exact-Bayes posterior mass on the
	// truth from the agent's own queries, its beliefs replaced by Bayes.
	IAS float64
	// CBT is Σ_t max(0, Ψ(b_{t+1}) − Ψ(b_t)) on the agent's own beliefs (NaN
	// for tasks without beliefs).
	CBT float64
	// Evidence measures how much the final answer uses the evidence, so a
	// success from a constant shortcut is visible: for PE the final cosine
	// to w*, for the discrete tasks the mass the final answer puts on the
	// truth (NaN when the task has no belief).
	Evidence  float64
	Turns     int
	Malformed int
	Repeats   int
	// Extra are counts a task defines beyond the measures above, by name
	// (telecom: tool errors, the tool-turn ratio); nil for a task without
	// any. Summarize averages each over the episodes that define it.
	Extra map[string]float64
}

// Episode is one instance of a task being played.
//
// The token stream of an episode is Prompt(), then for each turn the agent's
// tokens (ending with EOT) followed by the observation Step returns. The
// prompt and each observation end with a header token that tells the agent
// which kind of turn comes next.
type Episode interface {
	// Prompt is the initial context, starting with BOS.
	Prompt() []Token
	// Next describes the turn the agent must take now; meaningless once Done.
	Next() Turn
	// Step consumes the agent's tokens for the current turn, EOT excluded,
	// and returns the observation tokens to append and the judged step. Any
	// token sequence is accepted: what does not parse is malformed. Calling
	// Step after Done returns an error.
	Step(action []Token) (obs []Token, step Step, err error)
	// Done reports whether the episode is over (final answer given or the
	// turn limit reached).
	Done() bool
	// Steps lists the judged steps so far.
	Steps() []Step
	// Measures summarises the episode; valid once Done.
	Measures() Measures
}

// Revealer is an Episode that can state its hidden state in words, for
// the transcripts a reader judges a run by; it is never shown to the agent.
type Revealer interface {
	Reveal() string
}

// Policy is a scripted agent: it returns its tokens for the current turn of
// ep (EOT excluded). Scripted policies may read the task's internal state
// through the concrete episode type; they are baselines and data sources,
// not learners.
type Policy interface {
	Name() string
	Act(ep Episode, rng *rand.Rand) ([]Token, error)
}

// PolicySpec selects a scripted policy of a task.
type PolicySpec struct {
	// Kind is "random" (valid but uninformed), "weak" (the demonstrator with
	// the two knobs below), "strong" (greedy information gain + exact Bayes),
	// "constant" (the best constant answer, ignoring all replies) or
	// "locked" (a confidently uninformed demonstrator with the same knobs:
	// well-formed turns whose default is a stale belief that never moves;
	// only the tasks that document it have it).
	Kind string
	// QAS: probability that a weak query is informative rather than arbitrary.
	QAS float64
	// QBT: probability that a weak stated belief follows the evidence rather
	// than staying put or drifting.
	QBT float64
}

// Validate checks a spec before a task builds the policy: a known kind,
// and the weak demonstrator's knobs inside [0, 1] (NaN rejected). Every
// task's Scripted calls it first.
func (s PolicySpec) Validate() error {
	switch s.Kind {
	case "random", "strong", "constant":
		return nil
	case "weak", "locked":
		if !(s.QAS >= 0 && s.QAS <= 1 && s.QBT >= 0 && s.QBT <= 1) {
			return fmt.Errorf("%s policy: QAS %v and QBT %v must lie in [0, 1]", s.Kind, s.QAS, s.QBT)
		}
		return nil
	}
	return fmt.Errorf("unknown policy kind %q (want random, weak, strong, constant or locked)", s.Kind)
}

// Task is a configured simulator.
type Task interface {
	// Name identifies the task and setting, e.g. "pe-g-s3", "flodial-hard".
	Name() string
	Vocab() *Vocab
	// MaxTokens bounds the length of any episode's full token stream, so a
	// model's context can be sized for the task.
	MaxTokens() int
	// NewEpisode makes instance index of split. Deterministic: the same
	// (config, split, index) gives the same instance.
	NewEpisode(split Split, index int) (Episode, error)
	// Scripted returns a scripted policy.
	Scripted(spec PolicySpec) (Policy, error)
	// BestConstant finds the single final answer that, ignoring all replies,
	// scores best over the first n instances of split, and its success rate.
	BestConstant(split Split, n int) (answer string, success float64, err error)
}

// Recycler is a Task that can make an episode in the memory of one it made
// before, for a rollout that plays thousands of them: Recycle(old, split,
// index) plays exactly as NewEpisode(split, index) does (the same prompt,
// observations, turns, critiques and measures) with one difference: its
// steps carry no Text, the rendering for logs that a rollout never reads
// (a string per turn). old is an episode of this task (from NewEpisode or
// Recycle) or nil; once passed, it and everything it returned (prompt,
// observations, steps) must no longer be used.
type Recycler interface {
	Recycle(old Episode, split Split, index int) (Episode, error)
}

// Factory makes a configured task. config is a JSON object of overrides of
// the setting's documented defaults (nil or empty: the defaults); unknown
// fields and invalid values are errors.
type Factory func(config json.RawMessage) (Task, error)

var (
	registryMu sync.Mutex
	registry   = map[string]Factory{}
)

// Register makes a task setting available by name (task packages call it
// from init). A duplicate name is a programmer bug and panics.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("tasks: %q registered twice", name))
	}
	registry[name] = f
}

// New makes the named task setting with the given overrides.
func New(name string, config json.RawMessage) (Task, error) {
	registryMu.Lock()
	f, ok := registry[name]
	registryMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown task %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	t, err := f(config)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", name, err)
	}
	return t, nil
}

// Names lists the registered settings, sorted.
func Names() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DecodeConfig fills cfg (already holding the defaults) from the JSON
// overrides, rejecting unknown fields. Task factories share it.
func DecodeConfig(config json.RawMessage, cfg any) error {
	if len(strings.TrimSpace(string(config))) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(config)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("config: trailing data after the JSON object")
	}
	return nil
}

// Rounds is the turn bookkeeping of the protocol the released AREW code
// uses and the PE, MediQ and FloDial simulators share: n rounds, each an
// action turn (AS: a query) then a guess turn (BT: a stated belief), so turn
// 2r is round r's query and turn 2r+1 its belief; the last belief is the
// final answer. An episode embeds Rounds and gets Done and Steps from it;
// its Step calls Play with its own query and belief judges.
type Rounds struct {
	n     int
	turn  int
	steps []Step
}

// NewRounds starts n ≥ 1 rounds.
func NewRounds(n int) Rounds { return Rounds{n: n} }

// Restart starts n ≥ 1 rounds again in r's memory: as NewRounds(n), except
// that the list of steps reuses its array, so a Steps slice returned before
// must no longer be used (an episode made again in place, tasks.Recycler).
func (r *Rounds) Restart(n int) {
	clear(r.steps)
	*r = Rounds{n: n, steps: r.steps[:0]}
}

// Turn is the 0-based index of the current turn (2n once the episode ends).
func (r *Rounds) Turn() int { return r.turn }

// Round is the 0-based index of the current round.
func (r *Rounds) Round() int { return r.turn / 2 }

// QueryTurn reports whether the current turn is a query (AS) turn.
func (r *Rounds) QueryTurn() bool { return r.turn%2 == 0 }

// LastRound reports whether the current turn belongs to the last round, so
// its query's reply is followed by the final answer rather than a guess.
func (r *Rounds) LastRound() bool { return r.turn/2 == r.n-1 }

// FinalTurn reports whether the current turn is the final answer.
func (r *Rounds) FinalTurn() bool { return r.turn == 2*r.n-1 }

// Done reports whether all 2n turns have been played.
func (r *Rounds) Done() bool { return r.turn >= 2*r.n }

// Steps lists the judged steps so far. Callers read it; an append by a
// caller never reaches the episode's own list.
func (r *Rounds) Steps() []Step { return r.steps[:len(r.steps):len(r.steps)] }

// Next is the turn the agent takes now: queries may use queryMax tokens,
// beliefs beliefMax (EOT included in both).
func (r *Rounds) Next(queryMax, beliefMax int) Turn {
	if r.QueryTurn() {
		return Turn{Kind: AS, MaxTokens: queryMax}
	}
	return Turn{Kind: BT, Final: r.FinalTurn(), MaxTokens: beliefMax}
}

// Play judges the current turn with query or belief (by its parity), stamps
// the step with its turn index, records it and moves on. After the last
// turn it returns an error naming the task.
func (r *Rounds) Play(task string, action []Token, query, belief func([]Token) ([]Token, Step)) ([]Token, Step, error) {
	if r.Done() {
		return nil, Step{}, fmt.Errorf("%s: step after the episode ended", task)
	}
	judge := belief
	if r.QueryTurn() {
		judge = query
	}
	obs, s := judge(action)
	s.Turn = r.turn
	r.steps = append(r.steps, s)
	r.turn++
	return obs, s, nil
}
