package study

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
)

// The follow-on studies are valid for every rule the adoption rule may
// pick: every AREW arm trains on that rule at its λ (λ's own table
// aside), the reference is an arm, and the final test evaluation is the
// protocol's.
func TestFollowOnStudiesForEveryCandidateRule(t *testing.T) {
	for _, cand := range LadderTurnLevel {
		rule := cand[len("arew-"):]
		for _, c := range []Config{Robustness("flodial-easy-locked-bt006", rule), Robustness("flodial-easy-locked-bt015", rule),
			Table2(rule), LambdaTable(rule), Algos(rl.AlgoGRPO, rule), Algos(rl.AlgoGSPO, rule)} {
			require.NoError(t, c.Validate(), "%s %s", rule, c.Name)
			arew := 0
			for _, a := range c.Arms {
				if a.AREW.Critiques == rl.CritiquesNone {
					continue
				}
				arew++
				want, err := json.Marshal(map[string]string{"Critiques": rule})
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(a.TaskConfig), "%s %s", c.Name, a.Name)
			}
			assert.Positive(t, arew, c.Name)
			assert.Equal(t, FinalTestEpisodes, c.Eval.Test, c.Name)
		}
	}
	c := Table2("mass")
	assert.Equal(t, DirectionControlFlip, c.Arms[len(c.Arms)-1].AREW.Perturb.Flip, "the last flip is the direction control")
	assert.Equal(t, "robust-flodial-bt006", Robustness("flodial-easy-locked-bt006", "mass").Name)
}

// The adopted rule is the one the adoption rule picks from the ladder's
// committed summary, on validation numbers only.
func TestAdoptedRuleFollowsTheLadder(t *testing.T) {
	ladder := readCommittedSummary(t, "flodial-critiques")
	assert.Equal(t, "arew-"+AdoptedRule, ladder.Adopted(LadderTurnLevel, len(FinalSeeds)))
	for _, name := range []string{"robust-flodial-bt006", "robust-flodial-bt015", "table2-flodial", "lambda-flodial",
		"algos-flodial-grpo", "algos-flodial-gspo"} {
		c, err := Preset(name)
		require.NoError(t, err)
		assert.Equal(t, name, c.Name)
		require.NoError(t, c.Validate(), name)
	}
}
