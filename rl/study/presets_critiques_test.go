package study

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/rl/run"
	"arew/tasks/flodial"
)

// committedResults is where the tuning sweeps' results are committed.
const committedResults = "../../docs/results"

// committed reports whether docs/results holds the study name's summary.
func committed(name string) bool {
	_, err := os.Stat(filepath.Join(committedResults, name, SummaryFile))
	return err == nil
}

func readCommittedSummary(t *testing.T, name string) *Summary {
	data, err := os.ReadFile(filepath.Join(committedResults, name, SummaryFile))
	require.NoError(t, err)
	var s Summary
	require.NoError(t, json.Unmarshal(data, &s))
	return &s
}

// The sweeps' presets are the studies whose results are committed (so a
// -resume of them continues them, and their selections are theirs).
func TestSweepPresetsAreTheCommittedStudies(t *testing.T) {
	for _, name := range []string{"tune-vanilla-flodial", "tune-lambda-flodial", "flodial-critiques", "robust-flodial-bt006",
		"robust-flodial-bt015", "table2-flodial", "lambda-flodial", "algos-flodial-grpo", "algos-flodial-gspo",
		"tune-vanilla-mediq", "tune-lambda-mediq", "table1-flodial-easy", "tune-lambda-mediq-mass", "table1-mediq",
		"tune-vanilla-flodial-hard", "tune-lambda-flodial-hard", "tune-lambda-flodial-hard-mass", "table1-flodial-hard",
		"tune-vanilla-telecom-solo", "tune-lambda-telecom-solo", "tune-vanilla-telecom-dual", "tune-lambda-telecom-dual", "telecom-solo", "telecom-dual"} {
		c, err := Preset(name)
		require.NoError(t, err)
		sw := &run.Sweep{Kind: "study", Dir: filepath.Join(committedResults, name), Config: c}
		assert.NoError(t, sw.Open(true), name) // as -resume checks its study.json
	}
}

// A Table 1 or telecom setting's vanilla-tuned and λ are what the
// selection rule picked from its committed tuning sweeps.
func TestTable1FollowsTheSweeps(t *testing.T) {
	seeds := len(TuningSeeds)
	for _, s := range append(Table1Settings(), TelecomSettings()...) {
		if s.Name == "flodial-easy" || s.Vanilla == nil {
			continue // §7's sweeps (TestLadderFollowsTheSweeps), or not tuned yet
		}
		sel := readCommittedSummary(t, "tune-vanilla-"+s.Name).Selected(seeds)
		assert.Equal(t, s.Vanilla.Name, sel[""], "%s: vanilla-tuned", s.Name)
		sel = readCommittedSummary(t, "tune-lambda-"+s.Name).Selected(seeds)
		assert.Equal(t, fmt.Sprintf("arew-l%g", s.Lambda), sel[""], "%s: λ", s.Name)
		if s.FinerRule == "" || (s.Finer == nil && !committed("tune-lambda-"+s.Name+"-"+s.FinerRule)) {
			continue // no finer rule, or its sweep has not run yet
		}
		sel = readCommittedSummary(t, "tune-lambda-"+s.Name+"-"+s.FinerRule).Selected(seeds)
		require.Len(t, s.Finer, 2, "%s: the finer rule's arm and its direction control", s.Name)
		for _, a := range s.Finer {
			assert.Equal(t, fmt.Sprintf("arew-l%g", a.AREW.Lambda), sel[""], "%s: %s's λ", s.Name, a.Name)
			assert.JSONEq(t, fmt.Sprintf(`{"Critiques": %q}`, s.FinerRule), string(a.TaskConfig), a.Name)
		}
		assert.Equal(t, DirectionControlFlip, s.Finer[1].AREW.Perturb.Flip, "the control flips signs")
	}
}

// The ladder takes what the selection rule picked from the committed
// sweeps: vanilla-tuned is the vanilla sweep's selected recipe, and each
// rule's λ is the one its family selected.
func TestLadderFollowsTheSweeps(t *testing.T) {
	seeds := len(TuningSeeds)
	sel := readCommittedSummary(t, "tune-vanilla-flodial").Selected(seeds)
	assert.Equal(t, SelectedVanilla.Name, sel[""], "vanilla-tuned")
	sel = readCommittedSummary(t, "tune-lambda-flodial").Selected(seeds)
	for _, rule := range flodial.CritiqueRules {
		assert.Equal(t, lambdaArm(rule, SelectedLambda[rule]).Name, sel[rule], "the λ of %s", rule)
	}

	c := FloDialCritiques()
	require.NoError(t, c.Validate())
	assert.Equal(t, FinalSeeds, c.Seeds)
	assert.Equal(t, FinalTestEpisodes, c.Eval.Test)
	assert.Equal(t, "val", c.Eval.Split)
	arms := map[string]Arm{}
	for _, a := range c.Arms {
		arms[a.Name] = a
	}
	assert.Len(t, arms, 3+len(flodial.CritiqueRules))
	assert.JSONEq(t, string(SelectedVanilla.PPO), string(arms["vanilla-tuned"].PPO))
	assert.Equal(t, rl.CritiquesNone, arms["vanilla"].AREW.Critiques)
	assert.Nil(t, arms["vanilla"].PPO, "vanilla is the recipe's")
	random, perFault := arms["random"], arms["arew-per-fault"]
	assert.Equal(t, DirectionControlFlip, random.AREW.Perturb.Flip)
	random.AREW.Perturb.Flip = 0
	random.Name = perFault.Name
	assert.Equal(t, perFault, random, "random is per-fault with its signs flipped, nothing else")
}
