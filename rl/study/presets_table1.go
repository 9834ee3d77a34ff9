package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"arew/kernels"
	"arew/rl"
)

// Setting is one row of Table 1 (docs/arew.md §8) or of the telecom
// figures: a task on its layout, the base the lock rule chose for it, and
// what tuning selected for it. A setting is runnable once each of those
// exists (Ready); until then its study fails, naming what is missing.
type Setting struct {
	Name string // the row, and the study's name after its preset's prefix
	Task string
	// TaskConfig is what RL trains on: the setting's layout (§8 step 1)
	// under the hasty style, with the task's critique rule when it has
	// several (the rule the tuning sweeps used).
	TaskConfig json.RawMessage
	// Rule is the paper's critique rule as an arm's task config (nil: the
	// task's default is the paper's).
	Rule json.RawMessage
	// Base is the shipped base the step-3 rule chose; "" while none is.
	Base string
	// Vanilla is step 4's vanilla-tuned recipe; nil until it is selected.
	Vanilla *Arm
	// Lambda is step 4's λ of AREW AS+BT under Rule; 0 until it is selected.
	Lambda float64
	// Finer are extra AREW arms under a finer critique rule, for a setting
	// where the paper's rule does not separate and a finer one does (§8
	// step 5 reports both).
	Finer []Arm
	// FinerRule names a finer critique rule whose λ is tuned by a sweep of
	// its own (TuneLambdaFiner; "" for none).
	FinerRule string
	// Published are the paper's numbers for the setting's arms, in order
	// (outcome reward × 100; docs/arew.md §5), for shape.
	Published []float64
	// Pending says what must happen before Base can be named (§8 steps 1–3).
	Pending string
}

// Ready is nil when the setting can run: its base is chosen and shipped,
// and vanilla-tuned and λ are selected. Otherwise the error names the
// setting and everything missing.
func (s Setting) Ready() error {
	var missing []string
	if err := s.baseReady(); err != nil {
		missing = append(missing, strings.TrimPrefix(err.Error(), s.Name+": "))
	}
	sweep := func(kind string) string {
		if _, ok := Presets["tune-"+kind+"-"+s.Name]; ok {
			return "-study tune-" + kind + "-" + s.Name
		}
		return "the " + kind + " sweep on its base"
	}
	if s.Vanilla == nil {
		missing = append(missing, "vanilla-tuned not selected (§8 step 4: "+sweep("vanilla")+")")
	}
	if s.Lambda == 0 {
		missing = append(missing, "AREW's λ not selected (§8 step 4: "+sweep("lambda")+")")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", s.Name, strings.Join(missing, "; "))
}

// baseReady is nil when the setting's base is chosen and shipped: what
// its tuning sweeps need.
func (s Setting) baseReady() error {
	switch {
	case s.Base == "":
		return fmt.Errorf("%s: no base: %s", s.Name, s.Pending)
	case !Shipped(s.Base):
		return fmt.Errorf("%s: %w", s.Name, checkShipped(s.Base))
	}
	return nil
}

// rlStudy is the setting's study of the given arms: the RL recipe of the
// FloDial studies (flodialRecipe: PPO, 64 episodes per update, actor lr
// 3e-4, 200 updates) on the setting's task from its base, the table seeds,
// validation every 20 updates on 200 instances, the final 1000 test
// instances, every arm paired with the first (the reference).
func (s Setting) rlStudy(name string, arms []Arm) Config {
	c := flodialRecipe(name, arms, TableSeeds, 200, 20)
	c.Task, c.TaskConfig = s.Task, s.TaskConfig
	c.Base = Base{Shipped: s.Base}
	c.Reference, c.Margin = arms[0].Name, LadderMargin
	return c
}

// lambda is the setting's selected λ, or recipeLambda as a placeholder
// while none is (such a setting is not Ready, so it never runs).
func (s Setting) lambda() float64 {
	if s.Lambda == 0 {
		return recipeLambda
	}
	return s.Lambda
}

// vanilla is the setting's vanilla-tuned arm, or the recipe's vanilla as a
// placeholder while none is selected (never run: the setting is not Ready).
func (s Setting) vanilla() Arm {
	a := StandardArms(0, kernels.MarginStep)[0]
	if s.Vanilla != nil {
		a = *s.Vanilla
	}
	a.Name = "vanilla-tuned"
	return a
}

// arewArm is AREW with critiques (as+bt or as) under the setting's rule at
// its λ.
func (s Setting) arewArm(name string, critiques rl.CritiqueSet) Arm {
	return Arm{Name: name, AREW: rl.AREW{Critiques: critiques, Lambda: s.lambda(), Mode: kernels.MarginStep}, TaskConfig: s.Rule}
}

// Table1Study is the setting's study of table1 (§8 step 5): vanilla-tuned
// (the reference), AREW-AS and AREW-AS+BT under the paper's rule at the
// selected λ, then the setting's finer-rule arms, on seeds 301–303.
func Table1Study(s Setting) Config {
	arms := []Arm{s.vanilla(), s.arewArm("arew-as", rl.CritiquesAS), s.arewArm("arew", rl.CritiquesBoth)}
	return s.rlStudy("table1-"+s.Name, append(arms, s.Finer...))
}

// TelecomStudy is the setting's study of the telecom figures: vanilla-tuned
// (the reference), AREW, and the direction control random (AREW with every
// critique's sign flipped with probability DirectionControlFlip) on seeds
// 301–303.
func TelecomStudy(s Setting) Config {
	arew := s.arewArm("arew", rl.CritiquesBoth)
	return s.rlStudy("telecom-"+strings.TrimPrefix(s.Name, "telecom-"), []Arm{s.vanilla(), arew, directionControl(arew, "random")})
}

var (
	// hastyLayout is a task config of the plain layout under the hasty style.
	hastyLayout = json.RawMessage(`{"Style": "hasty"}`)
	// specRule is FloDial's paper rule as an arm's task config (the
	// FloDial studies train on the per-fault rule's task config).
	specRule = critiquesConfig("spec")
)

// pePending is why PE-G and PE-F D=8 have no base (§8, "Capability:
// measured"), and peD6Pending why PE-F D=6 has none (§8, "Step 3", PE-F
// D=6: its candidates are built on its best recipe, which misses the
// target).
const (
	pePending   = "no layout gives the plain policy the capability yet (§8 step 1: greedy success below 0.85 × the strong policy's)"
	peD6Pending = "the rule picks among pe-f-d6-locked, -bt006 and -bt015 once all three are built (§8 step 3, PE-F D=6; -choose-lock pe-f-d6)"
)

// peD6Layout is PE-F D=6's RL layout under the hasty style: its lock
// candidates' (lockedCurriculum), the echo and pairs.
var peD6Layout = json.RawMessage(`{"Echo": true, "Pairs": true, "Style": "hasty"}`)

// Table1Settings are the seven rows of Table 1 in the paper's order, with
// what exists for each at this commit. FloDial-Easy's base, vanilla-tuned
// and λ are the §7 protocol's (the paper's rule is spec; its finer rule,
// the adopted mass, is reported beside it). MediQ's and FloDial-Hard's
// bases are the ones the step-3 rule chose among their candidates
// (docs/arew.md §8, "Step 3: the locked bases"); MediQ's vanilla-tuned
// (actor lr 1e-4, no entropy bonus, 8 steps) and λ (1) are what its
// tuning sweeps selected by §7's rule (docs/results/tune-vanilla-mediq,
// tune-lambda-mediq), and its finer-rule arms' λ (1) the mass rule's sweep
// (tune-lambda-mediq-mass; docs/arew.md §8, "MediQ under a finer rule").
// FloDial-Hard's vanilla-tuned (lr 1e-3, entropy 0.01, 1 step) and λ (3)
// are its sweeps' (tune-vanilla-flodial-hard, tune-lambda-flodial-hard);
// its finer rule is mass, whose arms take the λ (10) their sweep
// selected (tune-lambda-flodial-hard-mass; docs/arew.md §8,
// "FloDial-Hard's row").
func Table1Settings() []Setting {
	pe := func(task string, paper ...float64) Setting {
		return Setting{Name: task, Task: task, TaskConfig: hastyLayout, Pending: pePending, Published: paper}
	}
	vanilla, mediqVanilla, hardVanilla := vanillaTuned(), vanillaArm(1e-4, 0, 8), vanillaArm(1e-3, 0.01, 1)
	return []Setting{
		pe("pe-g-s2", 24.00, 46.00, 49.33), pe("pe-g-s3", 18.33, 32.00, 80.33),
		pe("pe-f-d8", 30.52, 39.62, 47.89),
		{Name: "pe-f-d6", Task: "pe-f-d6", TaskConfig: peD6Layout, Pending: peD6Pending, Published: []float64{32.03, 42.10, 44.47}},
		{Name: "mediq", Task: "mediq", TaskConfig: hastyLayout, Published: []float64{50.50, 57.25, 61.25}, Base: "mediq-locked",
			Vanilla: &mediqVanilla, Lambda: 1, FinerRule: "mass", Finer: finerArms("mass", 1)},
		{Name: "flodial-easy", Task: "flodial-easy", TaskConfig: hastyPerFault, Rule: specRule, Base: "flodial-easy-locked",
			Published: []float64{37.33, 43.67, 41.00}, Vanilla: &vanilla, Lambda: SelectedLambda["spec"],
			Finer: []Arm{ruleArm(AdoptedRule, "arew-"+AdoptedRule, SelectedLambda[AdoptedRule])}},
		{Name: "flodial-hard", Task: "flodial-hard", TaskConfig: hastyPerFault, Rule: specRule, Published: []float64{21.33, 36.00, 42.33},
			Base: "flodial-hard-locked", Vanilla: &hardVanilla, Lambda: 3, FinerRule: "mass", Finer: finerArms("mass", 10)},
	}
}

// finerArms are a setting's arms under its finer rule at the λ its own
// sweep selected (TuneLambdaFiner): AREW AS+BT (arew-<rule>) and the
// direction control random-<rule>, the same arm with every critique's sign
// flipped with probability DirectionControlFlip.
func finerArms(rule string, lambda float64) []Arm {
	arew := ruleArm(rule, "arew-"+rule, lambda)
	return []Arm{arew, directionControl(arew, "random-"+rule)}
}

// TelecomSettings are the two telecom settings of the paper's telecom
// figures (solo and dual-control; the paper's success read off its
// figures, ≈ 0.10 against 0.25 solo and 0.20 against 0.50 dual), on the
// plain layout under the hasty style, from the bases the step-3 rule
// chose among their candidates (docs/arew.md §8, "Telecom's bases").
// Their vanilla-tuned and λ are what their tuning sweeps selected
// (tune-vanilla-telecom-<setting>, tune-lambda-telecom-<setting>): solo
// actor lr 3e-4, no entropy bonus, 1 step, λ 3; dual lr 1e-4, entropy
// bonus 0.01, 8 steps, λ 1.
func TelecomSettings() []Setting {
	soloVanilla, dualVanilla := vanillaArm(3e-4, 0, 1), vanillaArm(1e-4, 0.01, 8)
	return []Setting{
		{Name: "telecom-solo", Task: "telecom-solo", TaskConfig: hastyLayout, Base: "telecom-solo-locked-bt015", Published: []float64{10, 25},
			Vanilla: &soloVanilla, Lambda: 3},
		{Name: "telecom-dual", Task: "telecom-dual", TaskConfig: hastyLayout, Base: "telecom-dual-locked", Published: []float64{20, 50},
			Vanilla: &dualVanilla, Lambda: 1},
	}
}

// Suite is a preset made of several studies, one per setting, each also a
// preset of its own (Members).
type Suite struct {
	Name     string
	Settings []Setting
	Study    func(Setting) Config
}

// Suites are the multi-setting presets: table1 (Table 1, §8 step 5) and
// telecom.
var Suites = map[string]func() Suite{
	"table1":  func() Suite { return Suite{Name: "table1", Settings: Table1Settings(), Study: Table1Study} },
	"telecom": func() Suite { return Suite{Name: "telecom", Settings: TelecomSettings(), Study: TelecomStudy} },
}

// Members are the suite's studies, one per setting, in order.
func (s Suite) Members() []Config {
	var out []Config
	for _, set := range s.Settings {
		out = append(out, s.Study(set))
	}
	return out
}

// Ready is nil when every setting of the suite can run; otherwise one
// error naming each setting that cannot and what it misses.
func (s Suite) Ready() error {
	var errs []error
	for _, set := range s.Settings {
		if err := set.Ready(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not runnable yet (docs/arew.md §8):\n%w", s.Name, errors.Join(errs...))
}

// gates are the presets that exist before they can run, each with the
// check Preset applies first: a suite member needs its setting Ready, a
// setting's tuning sweep only its base.
var gates = map[string]func() error{}

// gate is the check of preset name; nil when it has none or passes.
func gate(name string) error {
	if g, ok := gates[name]; ok {
		return g()
	}
	return nil
}

// init registers every suite member as a study preset of its own, and
// the tuning sweeps (§8 step 4) of every table1 and telecom setting but
// FloDial-Easy (whose are §7's), selected or not, so that a committed
// sweep can be made again, each behind its gate.
func init() {
	for _, suite := range Suites {
		s := suite()
		for _, set := range s.Settings {
			name := s.Study(set).Name
			Presets[name] = func() Config { return s.Study(set) }
			gates[name] = set.Ready
		}
	}
	for _, set := range append(Table1Settings(), TelecomSettings()...) {
		if set.Name == "flodial-easy" {
			continue // §7's own sweeps: tune-vanilla-flodial and tune-lambda-flodial
		}
		sweeps := []Config{TuneVanillaSetting(set), TuneLambdaSetting(set)}
		if set.FinerRule != "" {
			sweeps = append(sweeps, TuneLambdaFiner(set))
		}
		for _, c := range sweeps {
			Presets[c.Name] = func() Config { return c }
			gates[c.Name] = set.baseReady
		}
	}
}
