package study

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// An arm's task config is merged onto the study's, its PPO patch decoded
// onto a copy of the study's section; the study's config is not changed,
// and an arm that changes nothing gets the study's task config byte for
// byte.
func TestArmOverridesMergeOntoTheStudy(t *testing.T) {
	c := Smoke()
	c.TaskConfig = json.RawMessage(`{"Critiques": "per-fault", "Style": "hasty"}`)
	plain := c.Arms[0]
	tuned := Arm{Name: "tuned", AREW: plain.AREW, TaskConfig: json.RawMessage(`{"Critiques": "mass"}`),
		PPO: json.RawMessage(`{"policy": {"entropy_coef": 0.01, "optim": {"lr": 0.001}}}`)}
	before, err := json.Marshal(c.PPO)
	require.NoError(t, err)

	r, err := c.runConfig(plain, 5, "base.safetensors")
	require.NoError(t, err)
	assert.JSONEq(t, string(c.TaskConfig), string(r.TaskConfig), "no change")
	assert.Equal(t, c.PPO.Policy, r.PPO.Policy)

	r, err = c.runConfig(tuned, 5, "base.safetensors")
	require.NoError(t, err)
	assert.JSONEq(t, `{"Critiques": "mass", "Style": "hasty"}`, string(r.TaskConfig))
	assert.Equal(t, 0.001, r.PPO.Policy.Optim.LR)
	assert.Equal(t, 0.01, r.PPO.Policy.EntropyCoef)
	assert.Equal(t, c.PPO.Policy.Epochs, r.PPO.Policy.Epochs, "fields the patch does not name stay")
	assert.Equal(t, c.PPO.Policy.Optim.Beta2, r.PPO.Policy.Optim.Beta2, "nested fields the patch does not name stay")
	assert.Equal(t, uint64(5), r.PPO.Seed)
	after, err := json.Marshal(c.PPO)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the study's own section is not changed")

	c.Arms = append(c.Arms, tuned)
	require.NoError(t, c.Validate())
}

func TestValidateRejectsBadProtocols(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"in-training evaluation on test":           func(c *Config) { c.Eval.Split = "test" },
		"unknown split":                            func(c *Config) { c.Eval.Split = "dev" },
		"negative test":                            func(c *Config) { c.Eval.Test = -1 },
		"arm task config not an object":            func(c *Config) { c.Arms[0].TaskConfig = json.RawMessage(`[1]`) },
		"arm task config unknown field":            func(c *Config) { c.Arms[0].TaskConfig = json.RawMessage(`{"Critics": "mass"}`) },
		"arm task config changes the observations": func(c *Config) { c.Arms[0].TaskConfig = json.RawMessage(`{"Echo": true}`) },
		"arm ppo unknown field":                    func(c *Config) { c.Arms[0].PPO = json.RawMessage(`{"polcy": {}}`) },
		"arm ppo bad value":                        func(c *Config) { c.Arms[0].PPO = json.RawMessage(`{"policy": {"epochs": 0}}`) },
		"arm grpo in a ppo study":                  func(c *Config) { c.Arms[0].GRPO = json.RawMessage(`{}`) },
		"reference not an arm":                     func(c *Config) { c.Reference = "nobody" },
		"margin above 1":                           func(c *Config) { c.Margin = 2 },
	} {
		t.Run(name, func(t *testing.T) {
			c := Smoke()
			edit(&c)
			if strings.HasPrefix(name, "arm task config") && name != "arm task config not an object" {
				// Caught when the study builds the arm's task, before any folder is made.
				dir := filepath.Join(t.TempDir(), "s")
				_, err := Run(context.Background(), c, dir, nil)
				var ie *run.InputError
				require.ErrorAs(t, err, &ie)
				assert.NoDirExists(t, dir)
				return
			}
			assert.Error(t, c.Validate())
		})
	}
}

// A study with the whole protocol: evaluations in training on val, a final
// test evaluation in both modes, an arm that changes the task's critiques
// and one that changes the recipe, a reference arm and a ranking.
func TestStudyWithAFinalTestEvaluation(t *testing.T) {
	c := small()
	c.Name = "protocol"
	c.Arms = append(c.Arms[:2],
		Arm{Name: "mass", AREW: c.Arms[1].AREW, TaskConfig: json.RawMessage(`{"Critiques": "mass"}`)},
		Arm{Name: "vanilla-lr", AREW: c.Arms[0].AREW, PPO: json.RawMessage(`{"policy": {"optim": {"lr": 0.001}}}`)})
	c.Eval.Test = 12
	c.Tuning, c.Reference, c.Margin = true, "vanilla", 0.3
	dir := filepath.Join(t.TempDir(), c.Name)
	var log bytes.Buffer
	sum, err := Run(context.Background(), c, dir, &log)
	require.NoError(t, err, log.String())

	assert.Equal(t, "val", sum.Split)
	assert.Equal(t, 12, sum.Test)
	require.Len(t, sum.TestBaselines, 3, "random, strong, best constant on the test instances")
	for _, name := range sum.ArmOrder {
		runs := sum.Arms[name].Runs
		require.Len(t, runs, 1)
		require.NotNil(t, runs[0].Test, name)
		require.NotNil(t, runs[0].Test.Greedy)
		require.NotNil(t, runs[0].Test.Sampled)

		var recs []run.EvalRecord
		for _, line := range readLines(t, filepath.Join(dir, name, "seed-3", run.EvalFile)) {
			var r run.EvalRecord
			require.NoError(t, json.Unmarshal([]byte(line), &r))
			recs = append(recs, r)
		}
		// Updates 0, 2, 3 on val in both modes, then the test split once in both.
		require.Len(t, recs, 8)
		for _, r := range recs[:6] {
			assert.Equal(t, "val", r.Split)
			assert.Equal(t, 8, r.Episodes)
		}
		for _, r := range recs[6:] {
			assert.Equal(t, "test", r.Split)
			assert.Equal(t, 12, r.Episodes)
			assert.Equal(t, 3, r.Update)
		}
	}
	var rc run.Config
	data, err := os.ReadFile(filepath.Join(dir, "mass", "seed-3", run.ConfigFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rc))
	assert.JSONEq(t, `{"Critiques": "mass"}`, string(rc.TaskConfig), "config.json holds the arm's effective task config")
	data, err = os.ReadFile(filepath.Join(dir, "vanilla-lr", "seed-3", run.ConfigFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rc))
	assert.Equal(t, 0.001, rc.PPO.Policy.Optim.LR)

	rep, err := os.ReadFile(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	for _, want := range []string{"## Final, on 12 test instances", "Success per seed", "Paired differences in sampled test success against vanilla",
		"## Selection", "mass (AREW as+bt", `task {"Critiques": "mass"}`, "evaluation in training: the first 8 val instances"} {
		assert.Contains(t, string(rep), want)
	}
	assert.Len(t, sum.Ranking(1), 4, "every arm complete: all ranked")
	assert.FileExists(t, filepath.Join(dir, PlotsDir, PhasePlot))

	console, err := os.ReadFile(filepath.Join(dir, run.ConsoleFile))
	require.NoError(t, err)
	assert.Contains(t, string(console), "== study protocol")
	assert.Contains(t, string(console), "mass seed 3 @ 3 test greedy")
	assert.NotContains(t, string(console), "\x1b", "no status lines")

	// Provenance: the study's attempts and each run's wall time.
	var attempts []run.Provenance
	data, err = os.ReadFile(filepath.Join(dir, run.ProvenanceFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &attempts))
	require.Len(t, attempts, 1)
	assert.NotEmpty(t, attempts[0].KernelSet)
	assert.False(t, attempts[0].End.IsZero())
	var prov run.Provenance
	data, err = os.ReadFile(filepath.Join(dir, "mass", "seed-3", run.ProvenanceFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &prov))
	assert.Positive(t, prov.WallSeconds)

	// TensorBoard: the version event, 3 updates, evaluations at 0, 2, 3
	// and the final test evaluation.
	events, err := filepath.Glob(filepath.Join(dir, "mass", "seed-3", run.TBDir, "events.out.tfevents.*"))
	require.NoError(t, err)
	require.Len(t, events, 1)
	data, err = os.ReadFile(events[0])
	require.NoError(t, err)
	records := 0
	for len(data) >= 16 {
		n := int(binary.LittleEndian.Uint64(data))
		require.LessOrEqual(t, 16+n, len(data))
		data = data[16+n:]
		records++
	}
	assert.Empty(t, data)
	assert.Equal(t, 1+3+3+1, records)
	assert.Contains(t, string(rep), "![phase](plots/phase.svg)")
}

func TestRankingFollowsTheRule(t *testing.T) {
	run := func(seed uint64, sampled, greedy float64) RunSum {
		return RunSum{Seed: seed, Status: "complete", Final: &run.Modes{
			Sampled: &run.Measures{Success: run.Num(sampled)}, Greedy: &run.Measures{Success: run.Num(greedy)}}}
	}
	s := &Summary{ArmOrder: []string{"a", "b", "c", "d", "e"}, Arms: map[string]*ArmSum{
		"a": {Runs: []RunSum{run(1, 0.2, 0.9), run(2, 0.4, 0.9)}},             // 0.3, 0.9
		"b": {Runs: []RunSum{run(1, 0.5, 0.1), run(2, 0.1, 0.1)}},             // 0.3, 0.1
		"c": {Runs: []RunSum{run(1, 0.6, 0.0), {Seed: 2, Status: "running"}}}, // incomplete
		"d": {Runs: []RunSum{run(1, 0.25, 0.5), run(2, 0.35, 0.9)}},           // 0.3, 0.7
		"e": {Runs: []RunSum{run(1, 0.1, 0.9), run(2, 0.9, 0.9)}},             // 0.5, 0.9
	}}
	var order []string
	for _, r := range s.Ranking(2) {
		order = append(order, r.Arm)
	}
	assert.Equal(t, []string{"e", "a", "d", "b"}, order, "sampled first, then greedy; incomplete arms are not ranked")
	assert.Contains(t, s.RankingTable(2), "Not ranked (a seed's run is not complete): [c]")
	assert.Empty(t, s.Selected(2), "one family, with an arm not ranked yet: nothing selected")

	// Families: the rule picks one arm in each.
	s.Arms["a"].Family, s.Arms["b"].Family = "x", "x"
	s.Arms["d"].Family, s.Arms["e"].Family = "y", "y"
	s.Arms["c"].Family = "z"
	assert.Equal(t, map[string]string{"x": "a", "y": "e"}, s.Selected(2))
	tbl := s.RankingTable(2)
	assert.Contains(t, tbl, "Selected for x: **a**")
	assert.Contains(t, tbl, "Selected for z: none yet")

	// Adoption: the same rule over the candidates only, whatever their
	// families; nothing while a candidate has a run missing.
	assert.Equal(t, "a", s.Adopted([]string{"b", "d", "a"}, 2), "a ties d and b on sampled and wins on greedy")
	assert.Equal(t, "d", s.Adopted([]string{"b", "d"}, 2))
	assert.Equal(t, "b", s.Adopted([]string{"b"}, 2))
	assert.Empty(t, s.Adopted([]string{"a", "c"}, 2))
}

func TestPairedDifferences(t *testing.T) {
	run := func(seed uint64, sampled float64) RunSum {
		return RunSum{Seed: seed, Status: "complete", Test: &run.Modes{Sampled: &run.Measures{Success: run.Num(sampled)}}}
	}
	s := &Summary{ArmOrder: []string{"ref", "x"}, Arms: map[string]*ArmSum{
		"ref": {Runs: []RunSum{run(1, 0.2), run(2, 0.2), run(3, 0.1)}},
		"x":   {Runs: []RunSum{run(1, 0.6), run(2, 0.4)}}, // seed 3 missing
	}}
	rows := s.Paired("ref", "sampled", 0.3, []uint64{1, 2, 3})
	require.Len(t, rows, 1)
	r := rows[0]
	assert.InDelta(t, 0.4, r.Deltas[0], 1e-12)
	assert.InDelta(t, 0.2, r.Deltas[1], 1e-12)
	assert.True(t, math.IsNaN(r.Deltas[2]))
	assert.Equal(t, 2, r.Pairs)
	assert.Equal(t, 1, r.AtLeast)
	assert.InDelta(t, 0.3, r.Mean, 1e-12)
	assert.Contains(t, s.PairedTable("ref", "sampled", 0.3, []uint64{1, 2, 3}), "1 of 2")

	// The report pairs every arm with the reference and with each
	// direction control (an arm whose signs are coin flips).
	c := Config{Reference: "ref", Margin: 0.3, Seeds: []uint64{1, 2, 3}, Arms: []Arm{{Name: "ref"}, {Name: "x"}}}
	assert.NotContains(t, pairedSections(c, s), "direction control")
	c.Arms[1].AREW.Perturb.Flip = DirectionControlFlip
	sec := pairedSections(c, s)
	assert.Contains(t, sec, "against x, the direction control")
	assert.Contains(t, sec, "| ref     | -0.400 | -0.200 |")
}

// The selection never reads the test split: a summary whose test numbers
// alone change ranks the same.
func TestRankingIgnoresTheTestSplit(t *testing.T) {
	mk := func(testA, testB float64) *Summary {
		run := func(final, test float64) RunSum {
			return RunSum{Seed: 1, Status: "complete", Final: &run.Modes{Sampled: &run.Measures{Success: run.Num(final)}},
				Test: &run.Modes{Sampled: &run.Measures{Success: run.Num(test)}}}
		}
		return &Summary{ArmOrder: []string{"a", "b"}, Arms: map[string]*ArmSum{
			"a": {Runs: []RunSum{run(0.6, testA)}}, "b": {Runs: []RunSum{run(0.4, testB)}}}}
	}
	for _, s := range []*Summary{mk(0.1, 0.9), mk(0.9, 0.1)} {
		rk := s.Ranking(1)
		require.Len(t, rk, 2)
		assert.Equal(t, []string{"a", "b"}, []string{rk[0].Arm, rk[1].Arm})
	}
}
