package telecom

import "math"

// Stats are the per-episode counts behind the paper's telecom figures
// (docs/arew.md §5): the assistant tool-turn ratio in dual (vanilla PPO drifts
// to the user-side shortcut, ≈ 0.03 vs 0.20 with AREW) and the tool errors per
// trajectory in solo (≈ 3–4 vs ≈ 0.5). An episode's Measures carry them as
// Extra counts (the Extra* keys), so every evaluation averages them.
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

// Extra keys of telecom's Measures (tasks.Measures.Extra): the Stats an
// evaluation averages, and so records and plots.
const (
	ExtraToolTurns        = "tool_turns"
	ExtraMessageTurns     = "message_turns"
	ExtraToolErrors       = "tool_errors"
	ExtraNoEffectWrites   = "no_effect_writes"
	ExtraUnexpectedWrites = "unexpected_writes"
	ExtraToolTurnRatio    = "tool_turn_ratio"
)

// extra is s as a Measures' Extra counts (the tool-turn ratio NaN without
// turns, so a mean skips it).
func (s Stats) extra() map[string]float64 {
	return map[string]float64{
		ExtraToolTurns:        float64(s.ToolTurns),
		ExtraMessageTurns:     float64(s.MessageTurns),
		ExtraToolErrors:       float64(s.ToolErrors),
		ExtraNoEffectWrites:   float64(s.NoEffectWrites),
		ExtraUnexpectedWrites: float64(s.UnexpectedWrites),
		ExtraToolTurnRatio:    s.ToolTurnRatio(),
	}
}
