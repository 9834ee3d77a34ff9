package telecom

import (
	"fmt"
	"math"
	"math/rand/v2"

	"arew/tasks"
)

// Stats are the per-episode counts behind the paper's telecom figures
// (docs/arew.md §5): the assistant tool-turn ratio in dual (vanilla PPO drifts
// to the user-side shortcut, ≈ 0.03 vs 0.20 with AREW) and the tool errors per
// trajectory in solo (≈ 3–4 vs ≈ 0.5). tasks.Measures cannot carry them; a
// trainer reads them with StatsOf(ep) once the episode is done.
type Stats struct {
	Turns int // agent turns
	// ToolTurns: turns that call an agent tool — the account tools, and in
	// solo the device tools — failed calls included (in dual a device action
	// called as a tool is such a failed call). Closing actions are not tools.
	ToolTurns int
	// MessageTurns: dual turns that message the user (say …).
	MessageTurns int
	CloseTurns   int // 1 if the agent closed with done or transfer, else 0
	// ToolErrors: tool calls answered "err": wrong line id, a precondition
	// unmet (roaming already on, refuel on a voice plan, a second pending
	// SIM, no plan above premium), or a device action called as a tool in dual.
	ToolErrors int
	// NoEffectWrites: accepted writes that changed nothing (restart, reseat
	// with no new SIM), by the agent or by the user on request.
	NoEffectWrites int
	// UnexpectedWrites: writes that changed the world but were not an expected
	// action performed for the first time: harmful or undoing changes.
	UnexpectedWrites int
	Malformed        int
	Repeats          int
	// AgentTokens: tokens the agent emitted, EOT included (capped per turn at
	// the turn's MaxTokens).
	AgentTokens int
}

// ToolTurnRatio is ToolTurns / Turns (the paper's assistant tool-turn
// ratio); NaN for an episode without turns.
func (s Stats) ToolTurnRatio() float64 {
	if s.Turns == 0 {
		return math.NaN()
	}
	return float64(s.ToolTurns) / float64(s.Turns)
}

// StatsOf returns the telecom stats of an episode made by this package.
func StatsOf(ep tasks.Episode) (Stats, bool) {
	e, ok := ep.(*Episode)
	if !ok {
		return Stats{}, false
	}
	return e.Stats(), true
}

// StatsSummary averages Stats over episodes (means per episode; the tool-turn
// ratio is the mean of the per-episode ratios).
type StatsSummary struct {
	Episodes                                      int
	Turns, ToolTurns, MessageTurns, ToolErrors    float64
	NoEffectWrites, UnexpectedWrites, AgentTokens float64
	ToolTurnRatio                                 float64
}

// SummarizeStats averages per-episode stats.
func SummarizeStats(ss []Stats) StatsSummary {
	out := StatsSummary{Episodes: len(ss)}
	if len(ss) == 0 {
		nan := math.NaN()
		out.Turns, out.ToolTurns, out.MessageTurns, out.ToolErrors = nan, nan, nan, nan
		out.NoEffectWrites, out.UnexpectedWrites, out.AgentTokens, out.ToolTurnRatio = nan, nan, nan, nan
		return out
	}
	ratioSum, ratios := 0.0, 0
	for _, s := range ss {
		out.Turns += float64(s.Turns)
		out.ToolTurns += float64(s.ToolTurns)
		out.MessageTurns += float64(s.MessageTurns)
		out.ToolErrors += float64(s.ToolErrors)
		out.NoEffectWrites += float64(s.NoEffectWrites)
		out.UnexpectedWrites += float64(s.UnexpectedWrites)
		out.AgentTokens += float64(s.AgentTokens)
		if r := s.ToolTurnRatio(); !math.IsNaN(r) {
			ratioSum += r
			ratios++
		}
	}
	n := float64(len(ss))
	out.Turns /= n
	out.ToolTurns /= n
	out.MessageTurns /= n
	out.ToolErrors /= n
	out.NoEffectWrites /= n
	out.UnexpectedWrites /= n
	out.AgentTokens /= n
	out.ToolTurnRatio = math.NaN()
	if ratios > 0 {
		out.ToolTurnRatio = ratioSum / float64(ratios)
	}
	return out
}

// EvaluateStats is tasks.Evaluate that also collects the telecom stats: it
// plays policy on the first n instances of split, instance i with its own
// generator from (seed, i), exactly as tasks.Evaluate does.
func EvaluateStats(task tasks.Task, policy tasks.Policy, split tasks.Split, n int, seed uint64) (tasks.Summary, StatsSummary, error) {
	ms := make([]tasks.Measures, 0, n)
	ss := make([]Stats, 0, n)
	for i := 0; i < n; i++ {
		ep, err := task.NewEpisode(split, i)
		if err != nil {
			return tasks.Summary{}, StatsSummary{}, err
		}
		m, err := tasks.Play(ep, policy, rand.New(rand.NewPCG(seed, uint64(i))), maxTurnsLimit+1)
		if err != nil {
			return tasks.Summary{}, StatsSummary{}, fmt.Errorf("%s instance %d: %w", task.Name(), i, err)
		}
		s, ok := StatsOf(ep)
		if !ok {
			return tasks.Summary{}, StatsSummary{}, fmt.Errorf("%s is not a telecom task", task.Name())
		}
		ms = append(ms, m)
		ss = append(ss, s)
	}
	return tasks.Summarize(ms), SummarizeStats(ss), nil
}
