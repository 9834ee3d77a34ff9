package run

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"arew/rl"
	"arew/tasks"
)

// The records of a run folder's logs, one type per kind: metrics.jsonl
// holds rl.Metrics (one per update), sft.jsonl rl.SFTMetrics (one per SFT
// epoch), samples.jsonl Sample (the first episodes of each evaluation),
// and eval.jsonl EvalRecord (one per evaluation and mode).

// Num is a float64 written as null when it is not finite (encoding/json
// refuses NaN) and read back from null as NaN: the measures a task does
// not define, the standard deviation of one seed.
type Num float64

// MarshalJSON writes null for NaN and ±Inf.
func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads null as NaN.
func (x *Num) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*x = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*x = Num(f)
	return nil
}

// Measures are the means of an evaluation over its instances
// (tasks.Summary): the five measures of docs/arew.md ("Measures") first,
// then the others. A measure the task does not define is null.
type Measures struct {
	Success   Num `json:"success"`
	ASProxy   Num `json:"as_proxy"`
	Evidence  Num `json:"evidence"`
	IAS       Num `json:"i_as"`
	CBT       Num `json:"c_bt"`
	Reward    Num `json:"reward"`
	BTProxy   Num `json:"bt_proxy"`
	Turns     Num `json:"turns"`
	Malformed Num `json:"malformed"`
	Repeats   Num `json:"repeats"`
	// Extra are the task's own counts (tasks.Summary.Extra: telecom's tool
	// errors and tool-turn ratio), absent for a task without any.
	Extra map[string]Num `json:"extra,omitempty"`
}

// MeasuresOf are the means of s.
func MeasuresOf(s tasks.Summary) *Measures {
	m := &Measures{Success: Num(s.Success), ASProxy: Num(s.ASProxy), Evidence: Num(s.Evidence),
		IAS: Num(s.IAS), CBT: Num(s.CBT), Reward: Num(s.Reward), BTProxy: Num(s.BTProxy),
		Turns: Num(s.Turns), Malformed: Num(s.Malformed), Repeats: Num(s.Repeats)}
	if len(s.Extra) > 0 {
		m.Extra = make(map[string]Num, len(s.Extra))
		for k, v := range s.Extra {
			m.Extra[k] = Num(v)
		}
	}
	return m
}

// EvalRecord is one line of eval.jsonl: one evaluation of the policy in
// one mode after Update RL updates, on the first Episodes instances of
// Split (val in training; test for a final evaluation).
type EvalRecord struct {
	Update    int         `json:"update"`
	Split     string      `json:"split"`
	Mode      rl.EvalMode `json:"mode"` // greedy or sampled (temperature 1)
	Episodes  int         `json:"episodes"`
	Truncated int         `json:"truncated"` // episodes cut at the context
	Seconds   float64     `json:"seconds"`
	Measures
}

// Modes is one evaluation in each mode; a mode not evaluated is null.
type Modes struct {
	Greedy  *Measures `json:"greedy"`
	Sampled *Measures `json:"sampled"`
}

// Set records m as the evaluation in mode.
func (m *Modes) Set(mode rl.EvalMode, s *Measures) {
	if mode == rl.ModeGreedy {
		m.Greedy = s
	} else {
		m.Sampled = s
	}
}

// Get is the evaluation in mode (greedy or sampled), or nil.
func (m Modes) Get(mode rl.EvalMode) *Measures {
	if mode == rl.ModeGreedy {
		return m.Greedy
	}
	return m.Sampled
}

// Point is one evaluation of a run, in each of its modes: a point of its
// curve.
type Point struct {
	Update int `json:"update"`
	Modes
}

// Measure names one measure: a column of a report and one plot.
type Measure struct {
	Key   string // the JSON field and the plot's file name
	Label string
	Get   func(*Measures) float64
}

// ReportedHeader is cols, then the Reported measures' labels: the header
// of a table of them.
func ReportedHeader(cols ...string) []string {
	for _, m := range Reported {
		cols = append(cols, m.Label)
	}
	return cols
}

// ExtraMeasure is a task's own count key (Measures.Extra) as a Measure:
// its label the key with spaces, NaN where an evaluation lacks it.
func ExtraMeasure(key string) Measure {
	return Measure{key, strings.ReplaceAll(key, "_", " "), func(m *Measures) float64 {
		if x, ok := m.Extra[key]; ok {
			return float64(x)
		}
		return math.NaN()
	}}
}

// Reported are the five measures of the reports' tables and plots.
var Reported = []Measure{
	{"success", "success", func(m *Measures) float64 { return float64(m.Success) }},
	{"as_proxy", "AS proxy", func(m *Measures) float64 { return float64(m.ASProxy) }},
	{"evidence", "evidence use", func(m *Measures) float64 { return float64(m.Evidence) }},
	{"i_as", "I_AS", func(m *Measures) float64 { return float64(m.IAS) }},
	{"c_bt", "C_BT", func(m *Measures) float64 { return float64(m.CBT) }},
}
