package study

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// table1 is the seven settings of §8 in the paper's order, each a study of
// vanilla-tuned (the reference), AREW-AS and AREW-AS+BT at one λ under the
// paper's rule, on seeds 301–303, 200 updates, validation every 20 and
// the final 1000 test instances; telecom is solo and dual, vanilla-tuned
// and AREW.
func TestTable1AndTelecomShapes(t *testing.T) {
	table := Suites["table1"]()
	var names []string
	for _, c := range table.Members() {
		names = append(names, c.Name)
		assert.Equal(t, []uint64{301, 302, 303}, c.Seeds, c.Name)
		assert.Equal(t, rl.AlgoPPO, c.Algo, c.Name)
		assert.Equal(t, 200, c.Updates, c.Name)
		assert.Equal(t, EvalConfig{run.EvalConfig{Every: 20, Episodes: 200, Modes: "both", Split: "val", Test: FinalTestEpisodes},
			DefaultThresholds}, c.Eval, c.Name)
		assert.Equal(t, "vanilla-tuned", c.Reference, c.Name)
		require.GreaterOrEqual(t, len(c.Arms), 3, c.Name)
		v, as, both := c.Arms[0], c.Arms[1], c.Arms[2]
		assert.Equal(t, []string{"vanilla-tuned", "arew-as", "arew"}, []string{v.Name, as.Name, both.Name})
		assert.Equal(t, rl.CritiquesNone, v.AREW.Critiques)
		assert.Equal(t, rl.CritiquesAS, as.AREW.Critiques)
		assert.Equal(t, rl.CritiquesBoth, both.AREW.Critiques)
		assert.Equal(t, both.AREW.Lambda, as.AREW.Lambda, "AS-only at the λ AS+BT selects")
		assert.Equal(t, string(both.TaskConfig), string(as.TaskConfig), "one rule for both")
		assert.Contains(t, string(c.TaskConfig), `"hasty"`, c.Name)
	}
	assert.Equal(t, []string{"table1-pe-g-s2", "table1-pe-g-s3", "table1-pe-f-d8", "table1-pe-f-d6", "table1-mediq",
		"table1-flodial-easy", "table1-flodial-hard"}, names)

	easy, err := Preset("table1-flodial-easy")
	require.NoError(t, err)
	assert.Equal(t, Base{Shipped: "flodial-easy-locked"}, easy.Base)
	assert.JSONEq(t, string(SelectedVanilla.PPO), string(easy.Arms[0].PPO), "vanilla-tuned is §7's")
	assert.JSONEq(t, `{"Critiques": "spec"}`, string(easy.Arms[2].TaskConfig), "the paper's rule")
	assert.Equal(t, SelectedLambda["spec"], easy.Arms[2].AREW.Lambda)
	require.Len(t, easy.Arms, 4)
	assert.Equal(t, ruleArm(AdoptedRule, "arew-"+AdoptedRule, SelectedLambda[AdoptedRule]), easy.Arms[3], "the finer rule beside")

	var tel []string
	for _, c := range Suites["telecom"]().Members() {
		tel = append(tel, c.Name+": "+c.Task)
		require.Len(t, c.Arms, 3)
		assert.Equal(t, rl.CritiquesNone, c.Arms[0].AREW.Critiques)
		assert.Equal(t, rl.CritiquesBoth, c.Arms[1].AREW.Critiques)
		direction := c.Arms[1]
		direction.Name, direction.AREW.Perturb.Flip = "random", DirectionControlFlip
		assert.Equal(t, direction, c.Arms[2], "the direction control is AREW with signs flipped at random")
	}
	assert.Equal(t, []string{"telecom-solo: telecom-solo", "telecom-dual: telecom-dual"}, tel)
}

// A setting that is not ready fails by name, with what it misses, as a
// preset of its own and inside its suite; a ready one is a valid study
// whose shipped base fits its task.
func TestTable1RefusesWhatIsMissing(t *testing.T) {
	for _, tc := range []struct{ preset, has string }{
		{"table1-pe-g-s2", "pe-g-s2: no base: no layout gives the plain policy the capability"},
		{"table1-pe-f-d6", "pe-f-d6: no base: the rule picks among pe-f-d6-locked, -bt006 and -bt015"},
	} {
		_, err := Preset(tc.preset)
		assert.ErrorContains(t, err, tc.has, tc.preset)
	}
	_, err := Preset("table1")
	require.Error(t, err)
	for _, set := range Table1Settings() {
		if set.Ready() != nil {
			assert.ErrorContains(t, err, set.Name+": ", "the suite names every setting it misses")
		}
	}
	_, err = Preset("telecom")
	assert.EqualError(t, err, "telecom is a suite of 2 studies, run by RunSuite", "both telecom settings are tuned")

	untuned := Setting{Name: "flodial-hard", Base: "flodial-hard-locked"}
	assert.ErrorContains(t, untuned.Ready(), "vanilla-tuned not selected (§8 step 4: -study tune-vanilla-flodial-hard); "+
		"AREW's λ not selected (§8 step 4: -study tune-lambda-flodial-hard)", "a shipped base without its selections")

	s := Setting{Name: "x", Base: "mediq-locked", Vanilla: &Arm{}, Lambda: 1}
	if !Shipped("mediq-locked") {
		assert.ErrorContains(t, s.Ready(), "not shipped yet")
	}
	s.Base = "flodial-easy-locked"
	assert.NoError(t, s.Ready())

	ready := 0
	for _, set := range Table1Settings() {
		if set.Ready() != nil {
			continue
		}
		ready++
		c, err := Preset(Table1Study(set).Name)
		require.NoError(t, err)
		require.NoError(t, c.Validate(), c.Name)
		task, err := tasks.New(c.Task, c.TaskConfig)
		require.NoError(t, err)
		assert.NoError(t, (&study{cfg: c, task: task}).loadBase(), c.Name)
	}
	assert.Positive(t, ready, "FloDial-Easy runs")
}

// Every table1 and telecom setting without a selection has its two
// tuning sweeps, the FloDial-Easy sweeps on its own task and base (the λ
// sweep under the paper's rule, one family), refused until its base is
// shipped.
func TestTable1TuningSweeps(t *testing.T) {
	vanilla := TuneVanilla()
	for _, set := range append(Table1Settings(), TelecomSettings()...) {
		if set.Vanilla != nil {
			continue
		}
		v, l := Presets["tune-vanilla-"+set.Name](), Presets["tune-lambda-"+set.Name]()
		assert.Equal(t, vanilla.Arms, v.Arms, set.Name)
		for _, c := range []Config{v, l} {
			assert.Equal(t, set.Task, c.Task)
			assert.Equal(t, Base{Shipped: set.Base}, c.Base)
			assert.Equal(t, vanilla.Seeds, c.Seeds)
			assert.Equal(t, vanilla.Eval, c.Eval)
			assert.True(t, c.Tuning)
			_, err := Preset(c.Name)
			if set.baseReady() != nil {
				assert.ErrorContains(t, err, set.Name+": no base", c.Name)
			} else {
				require.NoError(t, err, c.Name)
				require.NoError(t, c.Validate(), c.Name)
				task, err := tasks.New(c.Task, c.TaskConfig)
				require.NoError(t, err)
				assert.NoError(t, (&study{cfg: c, task: task}).loadBase(), "%s: the base fits", c.Name)
			}
		}
		require.Len(t, l.Arms, len(SweepLambdas))
		for i, a := range l.Arms {
			assert.Equal(t, SweepLambdas[i], a.AREW.Lambda)
			assert.Equal(t, rl.CritiquesBoth, a.AREW.Critiques)
			assert.Equal(t, "", a.Family, "one family: one λ")
			assert.Equal(t, string(set.Rule), string(a.TaskConfig))
		}
	}
}

// The committed table1 and telecom reports are each suite's report over
// the committed studies of its runnable settings. UPDATE_SUITE_REPORTS=1
// writes them instead (after a change of the report's layout).
func TestCommittedSuiteReports(t *testing.T) {
	for _, name := range []string{"table1", "telecom"} {
		suite := Suites[name]()
		var sums []*Summary
		for _, set := range suite.Settings {
			if set.Ready() == nil {
				sums = append(sums, readCommittedSummary(t, suite.Study(set).Name))
			}
		}
		path := filepath.Join(committedResults, name, SuiteReportFile)
		if os.Getenv("UPDATE_SUITE_REPORTS") != "" {
			require.NoError(t, os.WriteFile(path, []byte(suite.Report(sums)), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), suite.Report(sums), name)
	}
}
