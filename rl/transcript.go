package rl

import (
	"fmt"
	"strings"

	"arew/tasks"
)

// Transcript is a played episode as a reader sees it: each agent turn with
// the observation that preceded it, in words, and how the environment
// judged it.
type Transcript struct {
	Index   int              `json:"index"` // the instance of the split
	Success bool             `json:"success"`
	Reward  float64          `json:"reward"`
	Prompt  string           `json:"prompt"`
	Turns   []TranscriptTurn `json:"turns"`
}

// TranscriptTurn is one agent turn: what came before it since the last
// turn (the prompt's last header for the first), the agent's tokens, and
// the step's kind (AS or BT), critique and malformed flag.
type TranscriptTurn struct {
	Observation string `json:"observation"`
	Action      string `json:"action"`
	Kind        string `json:"kind"`
	Critique    int8   `json:"critique"`
	// TokenCritiques are the per-token critiques of a turn judged token by
	// token (Step.TokenZ), in token order.
	TokenCritiques []int8 `json:"token_critiques,omitempty"`
	Malformed      bool   `json:"malformed"`
	Final          bool   `json:"final"`
}

// NewTranscript renders trajectory tr of instance index with the task's
// vocabulary.
func NewTranscript(v *tasks.Vocab, index int, tr *Trajectory) Transcript {
	t := Transcript{Index: index, Success: tr.Measures.Success, Reward: tr.Reward}
	prev := len(tr.Tokens)
	if len(tr.Steps) > 0 {
		prev = tr.Steps[0].Start
	}
	t.Prompt = v.Decode(tr.Tokens[:prev])
	for i, s := range tr.Steps {
		obs := ""
		if i > 0 {
			obs = v.Decode(tr.Tokens[prev:s.Start])
		}
		t.Turns = append(t.Turns, TranscriptTurn{Observation: obs, Action: v.Decode(tr.Tokens[s.Start:s.End]),
			Kind: s.Kind.String(), Critique: s.Z, TokenCritiques: s.TokenZ, Malformed: s.Malformed, Final: s.Final})
		prev = s.End
	}
	return t
}

// Markdown renders the transcript's turns as a fenced block, one line per
// turn: the observation, then "|" and the agent's tokens with the step's
// kind and critique (the prompt is left out).
func (t Transcript) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "instance %d, success %v:\n\n```\n", t.Index, t.Success)
	for _, turn := range t.Turns {
		mark := ""
		if turn.Malformed {
			mark = " malformed"
		}
		if len(turn.TokenCritiques) > 0 {
			mark += " per token"
			for _, z := range turn.TokenCritiques {
				mark += fmt.Sprintf(" %+d", z)
			}
		}
		fmt.Fprintf(&b, "%-28s | %-22s %s z=%+d%s\n", turn.Observation, turn.Action, turn.Kind, turn.Critique, mark)
	}
	b.WriteString("```\n")
	return b.String()
}

// SamplesPerEval is how many episodes of each evaluation (the first
// instances) a run writes to its samples.jsonl as transcripts.
const SamplesPerEval = 3

// Sample is one line of a run's samples.jsonl: a transcript of an
// evaluated episode, with the update and mode of its evaluation.
type Sample struct {
	Update     int        `json:"update"`
	Mode       string     `json:"mode"`
	Transcript Transcript `json:"transcript"`
}

// Samples are the transcripts of the first SamplesPerEval episodes of an
// evaluation in mode after update updates.
func Samples(v *tasks.Vocab, res EvalResult, update int, mode string) []Sample {
	var out []Sample
	for i := 0; i < min(SamplesPerEval, len(res.Trajectories)); i++ {
		out = append(out, Sample{Update: update, Mode: mode, Transcript: NewTranscript(v, i, res.Trajectories[i])})
	}
	return out
}
