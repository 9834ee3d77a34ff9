package act

import (
	"bytes"
	"encoding/json"
	"fmt"

	"arew/engine"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
	"arew/tasks/textworld"
)

// CriticExample is one element (s, a⁺, a⁻) of D_critic, with the order the
// prompt shows the two actions in (drawn once, when the data is built, so
// a dataset file fixes its prompts).
type CriticExample struct {
	State       textworld.State
	Expert, Alt []tasks.Token
	// ExpertFirst: "action 1" is the expert's.
	ExpertFirst bool
	// AltAdmissible: the alternative applies at the state (Env.Admits).
	AltAdmissible bool
	// ExpertObs, AltObs: what the environment answered to each action from
	// this state (textworld.Outcome), for Early Experience's reflections.
	ExpertObs, AltObs []tasks.Token
}

// ExpertSlot is the slot, 1 or 2, of the choice prompt that holds the
// expert's action (ChoiceFormat.Prompt).
func (c CriticExample) ExpertSlot() int {
	if c.ExpertFirst {
		return 1
	}
	return 2
}

// shown is the two candidates in the order the prompt shows them.
func (c CriticExample) shown() (first, second []tasks.Token) {
	if c.ExpertFirst {
		return c.Expert, c.Alt
	}
	return c.Alt, c.Expert
}

// The JSONL records: text as space-separated words, so a dataset is
// readable and survives any change of token ids.
type turnRecord struct {
	Obs    string `json:"obs"`
	Action string `json:"action"`
}

type stateRecord struct {
	Goal       string       `json:"goal"`
	History    []turnRecord `json:"history"`
	Obs        string       `json:"obs"`
	Admissible []string     `json:"admissible"`
}

type pairRecord struct {
	stateRecord
	Expert string `json:"expert"`
}

type criticRecord struct {
	pairRecord
	Alt           string `json:"alt"`
	ExpertFirst   bool   `json:"expert_first"`
	AltAdmissible bool   `json:"alt_admissible"`
	ExpertObs     string `json:"expert_obs"`
	AltObs        string `json:"alt_obs"`
}

func stateToRecord(v *tasks.Vocab, s textworld.State) stateRecord {
	r := stateRecord{Goal: v.Decode(s.Goal), Obs: v.Decode(s.Obs), History: []turnRecord{}, Admissible: []string{}}
	for _, t := range s.History {
		r.History = append(r.History, turnRecord{Obs: v.Decode(t.Obs), Action: v.Decode(t.Action)})
	}
	for _, a := range s.Admissible {
		r.Admissible = append(r.Admissible, v.Decode(a))
	}
	return r
}

// encode maps text to tokens; a word outside v is an error (a file, not
// the program, is wrong).
func encode(v *tasks.Vocab, text string) ([]tasks.Token, error) {
	words := textworld.Words(text)
	out := make([]tasks.Token, len(words))
	for i, w := range words {
		t, ok := v.Lookup(w)
		if !ok || t <= tasks.EOT {
			return nil, fmt.Errorf("word %q is not in the vocabulary", w)
		}
		out[i] = t
	}
	return out, nil
}

func (r stateRecord) state(v *tasks.Vocab) (textworld.State, error) {
	var s textworld.State
	var err error
	if s.Goal, err = encode(v, r.Goal); err != nil {
		return s, fmt.Errorf("goal: %w", err)
	}
	if s.Obs, err = encode(v, r.Obs); err != nil {
		return s, fmt.Errorf("obs: %w", err)
	}
	for i, t := range r.History {
		var turn textworld.Turn
		if turn.Obs, err = encode(v, t.Obs); err != nil {
			return s, fmt.Errorf("history %d: %w", i, err)
		}
		if turn.Action, err = encode(v, t.Action); err != nil {
			return s, fmt.Errorf("history %d: %w", i, err)
		}
		s.History = append(s.History, turn)
	}
	for i, a := range r.Admissible {
		toks, err := encode(v, a)
		if err != nil {
			return s, fmt.Errorf("admissible %d: %w", i, err)
		}
		s.Admissible = append(s.Admissible, toks)
	}
	return s, nil
}

func pairToRecord(v *tasks.Vocab, p textworld.Pair) pairRecord {
	return pairRecord{stateRecord: stateToRecord(v, p.State), Expert: v.Decode(p.Expert)}
}

func (r pairRecord) pair(v *tasks.Vocab) (textworld.Pair, error) {
	s, err := r.state(v)
	if err != nil {
		return textworld.Pair{}, err
	}
	e, err := encode(v, r.Expert)
	if err != nil {
		return textworld.Pair{}, fmt.Errorf("expert: %w", err)
	}
	if len(e) == 0 {
		return textworld.Pair{}, fmt.Errorf("expert: empty action")
	}
	return textworld.Pair{State: s, Expert: e}, nil
}

// WritePairs writes expert pairs as JSONL, one pair a line.
func WritePairs(path string, v *tasks.Vocab, pairs []textworld.Pair) error {
	recs := make([]any, len(pairs))
	for i, p := range pairs {
		recs[i] = pairToRecord(v, p)
	}
	return writeJSONL(path, recs)
}

// ReadPairs reads a file written by WritePairs.
func ReadPairs(path string, v *tasks.Vocab) ([]textworld.Pair, error) {
	var out []textworld.Pair
	err := readJSONL(path, func(line []byte) error {
		var r pairRecord
		if err := rl.DecodeStrict(line, &r); err != nil {
			return err
		}
		p, err := r.pair(v)
		out = append(out, p)
		return err
	})
	return out, err
}

// WriteCritic writes D_critic as JSONL, one example a line.
func WriteCritic(path string, v *tasks.Vocab, data []CriticExample) error {
	recs := make([]any, len(data))
	for i, c := range data {
		recs[i] = criticRecord{pairRecord: pairToRecord(v, textworld.Pair{State: c.State, Expert: c.Expert}),
			Alt: v.Decode(c.Alt), ExpertFirst: c.ExpertFirst, AltAdmissible: c.AltAdmissible,
			ExpertObs: v.Decode(c.ExpertObs), AltObs: v.Decode(c.AltObs)}
	}
	return writeJSONL(path, recs)
}

// ReadCritic reads a file written by WriteCritic.
func ReadCritic(path string, v *tasks.Vocab) ([]CriticExample, error) {
	var out []CriticExample
	err := readJSONL(path, func(line []byte) error {
		var r criticRecord
		if err := rl.DecodeStrict(line, &r); err != nil {
			return err
		}
		p, err := r.pair(v)
		if err != nil {
			return err
		}
		alt, err := encode(v, r.Alt)
		if err != nil {
			return fmt.Errorf("alt: %w", err)
		}
		if len(alt) == 0 || textworld.Equal(alt, p.Expert) {
			return fmt.Errorf("alt: empty or equal to the expert's action")
		}
		c := CriticExample{State: p.State, Expert: p.Expert, Alt: alt, ExpertFirst: r.ExpertFirst, AltAdmissible: r.AltAdmissible}
		if c.ExpertObs, err = encode(v, r.ExpertObs); err != nil {
			return fmt.Errorf("expert_obs: %w", err)
		}
		if c.AltObs, err = encode(v, r.AltObs); err != nil {
			return fmt.Errorf("alt_obs: %w", err)
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// writeJSONL writes one JSON object per line, atomically (run.WriteFile:
// path holds the old file or the complete new one).
func writeJSONL(path string, recs []any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return run.WriteFile(path, buf.Bytes())
}

// readJSONL calls each on every non-blank line of the file at path, read
// through the bounded reader (engine.ReadFile: a regular file of at most
// run.MaxLogBytes) as every file of a run folder is; an error names the
// line.
func readJSONL(path string, each func(line []byte) error) error {
	data, err := engine.ReadFile(path, run.MaxLogBytes)
	if err != nil {
		return err
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := each(line); err != nil {
			return fmt.Errorf("read %s line %d: %w", path, n+1, err)
		}
	}
	return nil
}
