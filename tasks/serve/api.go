package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"arew/tasks"
)

// ResetRequest is the body of POST /reset.
type ResetRequest struct {
	Task string `json:"task"`
	// Split is "train" (default), "val" or "test"; a text environment with
	// an out-of-distribution split (alfworld) also has "test-ood".
	Split string `json:"split,omitempty"`
	// Index picks the instance; Seed is OpenEnv's name for the same choice
	// (used when Index is absent). Giving both is an error.
	Index  *int64          `json:"index,omitempty"`
	Seed   *int64          `json:"seed,omitempty"`
	Config json.RawMessage `json:"config,omitempty"` // the task's JSON overrides
	// EpisodeID optionally names the episode (OpenEnv lets the client
	// choose); by default the server draws one. It is a label, not a
	// secret and not necessarily unique: the token returned with it is
	// what names the episode.
	EpisodeID string `json:"episode_id,omitempty"`
}

// StepRequest is the body of POST /step. Action is the model's text, as a
// JSON string or as an object {"text": "..."}.
type StepRequest struct {
	EpisodeID string          `json:"episode_id"`
	Token     string          `json:"token"` // the episode's secret, from /reset
	Action    json.RawMessage `json:"action"`
}

// CloseRequest is the body of POST /close.
type CloseRequest struct {
	EpisodeID string `json:"episode_id"`
	Token     string `json:"token"`
}

// TurnInfo describes the turn the agent takes next.
type TurnInfo struct {
	Index    int    `json:"index"`     // 0-based turn number
	Kind     string `json:"kind"`      // "AS" or "BT"; "command" in a text environment
	Final    bool   `json:"final"`     // the move is the scored final answer
	MaxWords int    `json:"max_words"` // more words than this are malformed at once
}

// Observation is what the agent reads.
type Observation struct {
	Text string `json:"text"`
	// System is the task's system prompt (rules and answer format); sent
	// with the first observation only.
	System string `json:"system,omitempty"`
	// Turn is the next turn; null once the episode is over.
	Turn *TurnInfo `json:"turn"`
	// Admissible lists, in a text environment, the commands that apply
	// now (also in Text); absent once the episode is over and in tasks.
	Admissible []string `json:"admissible,omitempty"`
}

// Result is the reply to /reset and /step, in OpenEnv's shape plus the
// episode id and info.
type Result struct {
	EpisodeID string `json:"episode_id"`
	// Token is the episode's secret (in the reply to /reset only): /step,
	// /state and /close must carry it; with a wrong one the episode is
	// unknown (404).
	Token       string      `json:"token,omitempty"`
	Observation Observation `json:"observation"`
	Reward      float64     `json:"reward"` // the outcome, at the end; 0 before
	Done        bool        `json:"done"`
	Info        any         `json:"info"`
}

// ResetInfo is the info of /reset.
type ResetInfo struct {
	Task      string `json:"task"`
	Split     string `json:"split"`
	Index     int64  `json:"index"`
	MaxTokens int    `json:"max_tokens,omitempty"` // the token budget of a task's episode
	MaxSteps  int    `json:"max_steps,omitempty"`  // the step cap of a text environment's episode
}

// StepInfo is the info of /step: the environment's judgement of the move.
type StepInfo struct {
	Turn     int    `json:"turn"`
	Kind     string `json:"kind"`
	Final    bool   `json:"final"`
	Critique int8   `json:"critique"` // z ∈ {−1, 0, +1}
	// Malformed: the move did not parse (z = −1, the turn is used up).
	Malformed bool `json:"malformed"`
	// ParseError says why the text did not read as the task's words; empty
	// when it did (the move may still be malformed as tokens).
	ParseError string   `json:"parse_error,omitempty"`
	Repeat     bool     `json:"repeat"`
	TruthMass  *float64 `json:"truth_mass"` // Ψ after a BT step; null for AS
	Move       string   `json:"move"`       // the parsed move, for logs
	Tokens     []int32  `json:"tokens"`     // the move as token ids
	Measures   *Measure `json:"measures,omitempty"`
}

// Measure is tasks.Measures in JSON: NaN (a measure a task does not have)
// is null.
type Measure struct {
	Reward    float64  `json:"reward"`
	Success   bool     `json:"success"`
	ASProxy   *float64 `json:"as_proxy"`
	BTProxy   *float64 `json:"bt_proxy"`
	IAS       *float64 `json:"i_as"`
	CBT       *float64 `json:"c_bt"`
	Evidence  *float64 `json:"evidence"`
	Turns     int      `json:"turns"`
	Malformed int      `json:"malformed"`
	Repeats   int      `json:"repeats"`
	// Extra are the task's own counts (tasks.Measures.Extra), if it has any.
	Extra map[string]*float64 `json:"extra,omitempty"`
}

// StepRecord is one judged step in /state.
type StepRecord struct {
	Turn      int      `json:"turn"`
	Kind      string   `json:"kind"`
	Final     bool     `json:"final"`
	Critique  int8     `json:"critique"`
	Malformed bool     `json:"malformed"`
	Repeat    bool     `json:"repeat"`
	TruthMass *float64 `json:"truth_mass"`
	Move      string   `json:"move"`
}

// EpisodeState is the reply to GET /state: OpenEnv's episode_id and
// step_count, and the episode's record: a task's judged steps (State) or
// a text environment's commands (CommandState), and its measures once
// done.
type EpisodeState[Step, M any] struct {
	EpisodeID string    `json:"episode_id"`
	StepCount int       `json:"step_count"`
	Task      string    `json:"task"`
	Split     string    `json:"split"`
	Index     int64     `json:"index"`
	Done      bool      `json:"done"`
	Turn      *TurnInfo `json:"turn"`
	Steps     []Step    `json:"steps"`
	Measures  *M        `json:"measures,omitempty"`
}

// State is a task's /state.
type State = EpisodeState[StepRecord, Measure]

// stateOf is l's /state with its steps, turn and measures (nil before
// the end); the caller holds l's lock.
func stateOf[Step, M any](l *live, steps []Step, turn *TurnInfo, measures func() *M) EpisodeState[Step, M] {
	st := EpisodeState[Step, M]{EpisodeID: l.id, StepCount: len(steps), Task: l.task, Split: l.split, Index: l.index,
		Done: turn == nil, Turn: turn, Steps: steps}
	if st.Done {
		st.Measures = measures()
	}
	return st
}

// TaskInfo describes one task setting in GET /tasks.
type TaskInfo struct {
	Name string `json:"name"`
	// Protocol is "rounds" for the tasks (AS and BT turns, a critique per
	// step) and "commands" for the text environments (a command per step).
	Protocol  string          `json:"protocol"`
	Config    json.RawMessage `json:"config"` // the defaults; /reset's config overrides them
	MaxTokens int             `json:"max_tokens,omitempty"`
	MaxSteps  int             `json:"max_steps,omitempty"`
	System    string          `json:"system"` // the system prompt under the defaults
}

// The protocols of TaskInfo.
const (
	ProtocolRounds   = "rounds"
	ProtocolCommands = "commands"
)

// number is x, or nil for NaN and ±Inf, which JSON cannot carry.
func number(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func measureOf(m tasks.Measures) *Measure {
	out := &Measure{Reward: m.Reward, Success: m.Success, ASProxy: number(m.ASProxy), BTProxy: number(m.BTProxy),
		IAS: number(m.IAS), CBT: number(m.CBT), Evidence: number(m.Evidence),
		Turns: m.Turns, Malformed: m.Malformed, Repeats: m.Repeats}
	if len(m.Extra) > 0 {
		out.Extra = make(map[string]*float64, len(m.Extra))
		for k, v := range m.Extra {
			out.Extra[k] = number(v)
		}
	}
	return out
}

func recordOf(s tasks.Step) StepRecord {
	return StepRecord{Turn: s.Turn, Kind: s.Kind.String(), Final: s.Final, Critique: s.Z,
		Malformed: s.Malformed, Repeat: s.Repeat, TruthMass: number(s.TruthMass), Move: s.Text}
}

func turnOf(ep tasks.Episode) *TurnInfo {
	if ep.Done() {
		return nil
	}
	n := ep.Next()
	return &TurnInfo{Index: len(ep.Steps()), Kind: n.Kind.String(), Final: n.Final, MaxWords: max(n.MaxTokens-1, 0)}
}

// actionText reads the action of a step request: a JSON string, or an
// object whose only field is "text".
func actionText(raw json.RawMessage) (string, error) {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return "", fmt.Errorf(`missing "action" (the model's text)`)
	}
	var s string
	if trimmed[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("action: %w", err)
		}
		return s, nil
	}
	var obj struct {
		Text *string `json:"text"`
	}
	if err := checkJSON([]byte(trimmed), map[string]bool{"text": true}); err != nil {
		return "", fmt.Errorf(`action must be a string or {"text": string}: %v`, err)
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil || obj.Text == nil {
		return "", fmt.Errorf(`action must be a string or {"text": string}`)
	}
	return *obj.Text, nil
}
