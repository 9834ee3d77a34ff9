package act

import "fmt"

// Shaping is the verifiable reward of the ACT and RL stages (doc.go, "The
// rewards"): R = R_acc + R_adm + R_fmt.
type Shaping struct {
	Correct    float64 `json:"correct"`    // R_acc: the pick (or the action) is the expert's
	Admissible float64 `json:"admissible"` // R_adm
	Format     float64 `json:"format"`     // R_fmt: the output does not parse; then nothing else
	// AdmReading is the reading of R_adm: "non-expert" (the default: only an
	// admissible pick that is not the expert's earns it) or "any" (every
	// admissible pick earns it, the expert's included).
	AdmReading string `json:"adm_reading"`
}

// Readings of R_adm.
const (
	AdmNonExpert = "non-expert"
	AdmAny       = "any"
)

// DefaultShaping is the paper's 1 / 0.1 / −0.5 with the non-expert reading.
func DefaultShaping() Shaping {
	return Shaping{Correct: 1, Admissible: 0.1, Format: -0.5, AdmReading: AdmNonExpert}
}

// AccuracyOnly is R_acc alone (R_adm = R_fmt = 0): the RL stage's reward
// in the presets. Under the paper's shaping the RL stage of the tiny model
// collapsed onto a few "go to" commands: most groups of four sampled
// actions hold no expert action, so their advantages are decided by R_fmt
// and R_adm alone, and a short command that is always admissible maximises
// those (docs/act.md §7). With R_acc alone a group without the expert's
// action has zero advantage and teaches nothing.
func AccuracyOnly() Shaping {
	return Shaping{Correct: 1, AdmReading: AdmNonExpert}
}

// Validate rejects an unknown reading and non-finite values.
func (s Shaping) Validate() error {
	for _, v := range []float64{s.Correct, s.Admissible, s.Format} {
		if v != v || v > 1e6 || v < -1e6 {
			return fmt.Errorf("shaping: rewards must be finite numbers, got %v, %v, %v", s.Correct, s.Admissible, s.Format)
		}
	}
	if s.AdmReading != AdmNonExpert && s.AdmReading != AdmAny {
		return fmt.Errorf("shaping: adm_reading must be %q or %q, got %q", AdmNonExpert, AdmAny, s.AdmReading)
	}
	return nil
}

// Reward scores one output: parsed (it read as a choice or a command),
// expert (it is the expert's action, or picks it), admissible (the picked
// or generated action applies at the state).
func (s Shaping) Reward(parsed, expert, admissible bool) float64 {
	if !parsed {
		return s.Format
	}
	r := 0.0
	if expert {
		r += s.Correct
	}
	if admissible && (!expert || s.AdmReading == AdmAny) {
		r += s.Admissible
	}
	return r
}
