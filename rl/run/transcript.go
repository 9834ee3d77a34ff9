package run

import (
	"fmt"
	"strings"

	"arew/rl"
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
	// Truth is the episode's hidden state in words (tasks.Revealer), and
	// PromptText the prompt as the task's text face renders it (the table
	// the agent saw), where the task has them (WithText).
	Truth      string `json:"truth,omitempty"`
	PromptText string `json:"prompt_text,omitempty"`
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
func NewTranscript(v *tasks.Vocab, index int, tr *rl.Trajectory) Transcript {
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

// WithText adds what a reader needs to judge the episode, where the task
// can say it: the hidden truth of instance (split, Index), replayed from a
// fresh episode, and the prompt in the task's text rendering.
func (t Transcript) WithText(task tasks.Task, split tasks.Split, tr *rl.Trajectory) Transcript {
	if ep, err := task.NewEpisode(split, t.Index); err == nil {
		if r, ok := ep.(tasks.Revealer); ok {
			t.Truth = r.Reveal()
		}
	}
	if tt, ok := task.(tasks.TextTask); ok {
		prompt := len(tr.Tokens)
		if len(tr.Steps) > 0 {
			prompt = tr.Steps[0].Start
		}
		t.PromptText = tasks.NewTextFace(task.Vocab(), tt.TextFormat()).Render(tr.Tokens[:prompt])
	}
	return t
}

// Markdown renders the transcript: the truth and the prompt's text where
// known, then a fenced block with one line per turn: the observation, then
// "|" and the agent's tokens with the step's kind and critique.
func (t Transcript) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "instance %d, success %v", t.Index, t.Success)
	if t.Truth != "" {
		fmt.Fprintf(&b, "; %s", t.Truth)
	}
	b.WriteString(":\n\n")
	if t.PromptText != "" {
		fmt.Fprintf(&b, "```\n%s\n```\n\n", t.PromptText)
	}
	b.WriteString("```\n")
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
	Update     int         `json:"update"`
	Split      string      `json:"split"`
	Mode       rl.EvalMode `json:"mode"`
	Transcript Transcript  `json:"transcript"`
}

// Samples are the transcripts of the first SamplesPerEval episodes of an
// evaluation of split in mode after update updates, with the truth and the
// prompt's text where the task has them.
func Samples(task tasks.Task, split tasks.Split, res rl.EvalResult, update int, mode rl.EvalMode) []Sample {
	var out []Sample
	for i := 0; i < min(SamplesPerEval, len(res.Trajectories)); i++ {
		tr := res.Trajectories[i]
		out = append(out, Sample{Update: update, Mode: mode, Split: split.String(),
			Transcript: NewTranscript(task.Vocab(), i, tr).WithText(task, split, tr)})
	}
	return out
}
