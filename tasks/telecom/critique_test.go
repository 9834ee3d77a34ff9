package telecom

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestCritiqueRules(t *testing.T) {
	read := facts{read: true}
	write := facts{write: true, changed: true}
	userWrite := facts{write: true, user: true, changed: true}
	with := func(f facts, mod func(*facts)) facts { mod(&f); return f }
	late := func(f *facts) { f.late = true }
	cases := []struct {
		name             string
		f                facts
		solo, dual, cons int8
	}{
		{"malformed", facts{malformed: true}, -1, -1, -1},
		{"repeat", with(read, func(f *facts) { f.repeat = true }), -1, -1, -1},
		{"tool error on a read", with(read, func(f *facts) { f.toolErr = true }), -1, -1, -1},
		{"tool error on a write", facts{write: true, toolErr: true}, -1, -1, -1},
		{"no-effect agent write", facts{write: true}, -1, -1, -1},
		{"no-effect user write, early", facts{write: true, user: true}, -1, 0, -1}, // solo has no user acts: any no-effect write is −1
		{"no-effect user write, late", facts{write: true, user: true, late: true}, -1, -1, -1},
		{"matched agent write", with(write, func(f *facts) { f.matched = true }), 1, 1, 1},
		{"matched user write", with(userWrite, func(f *facts) { f.matched = true }), 1, 0, 1},
		{"matched user write, late", with(userWrite, func(f *facts) { f.matched, f.late = true, true }), 1, 0, 1},
		{"harmful agent write, early", write, 0, 1, -1},
		{"harmful agent write, late", with(write, late), -1, 1, -1},
		{"harmful user write, late", with(userWrite, late), -1, 0, -1},
		{"read, new info, splits", with(read, func(f *facts) { f.newInfo, f.splits = true, true }), 0, 1, 1},
		{"read, new info, splits, late", with(read, func(f *facts) { f.newInfo, f.splits, f.late = true, true, true }), -1, 1, 1},
		{"read, new info, no split", with(read, func(f *facts) { f.newInfo = true }), 0, 1, -1},
		{"read, nothing new, late", with(read, late), -1, -1, -1},
		{"read, nothing new, early", read, 0, 0, -1},
		{"user stop", with(userWrite, func(f *facts) { f.userStop = true }), 0, 1, -1},
		{"user stop on a repeat", with(read, func(f *facts) { f.userStop, f.repeat, f.user = true, true, true }), -1, 1, -1},
		{"correct close", facts{close: true, changed: true, matched: true}, 1, 1, 1},
		{"premature transfer", facts{close: true, changed: true, prematureTransfer: true}, -1, -1, -1},
		{"premature done, early", facts{close: true, changed: true}, 0, 0, -1},
		{"premature done, late", facts{close: true, changed: true, late: true}, -1, -1, -1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.solo, specSolo(tc.f), "spec solo: %s", tc.name)
		assert.Equal(t, tc.dual, specDual(tc.f), "spec dual: %s", tc.name)
		assert.Equal(t, tc.cons, consistentZ(tc.f), "consistent: %s", tc.name)
	}
}

// handEpisode makes an episode of a chosen configuration.
func handEpisode(t *testing.T, s string, crit string, line int, faults ...string) *Episode {
	cfg := DefaultConfig()
	cfg.Critiques = crit
	task, err := New(s, cfg)
	require.NoError(t, err)
	return newEpisode(task, cfgOf(t, faults...), line)
}

type turn struct {
	act   string // the agent's words
	reply string // the reply expected (header excluded)
	z     int8
}

// playTurns plays the turns and checks each reply and critique.
func playTurns(t *testing.T, e *Episode, turns []turn) {
	t.Helper()
	for i, tc := range turns {
		require.False(t, e.Done(), "turn %d (%s): episode already over", i, tc.act)
		obs, st, err := e.Step(toks(t, tc.act))
		require.NoError(t, err)
		if !e.Done() {
			require.NotEmpty(t, obs)
			obs = obs[:len(obs)-1] // the header
		}
		assert.Equal(t, tc.reply, vocabulary.Decode(obs), "turn %d: %s", i, tc.act)
		assert.Equal(t, tc.z, st.Z, "turn %d: %s → %s", i, tc.act, tc.reply)
	}
}

func TestSpecSoloCritiqueOnEpisodes(t *testing.T) {
	e := handEpisode(t, "solo", "spec", 1, "quota")
	playTurns(t, e, []turn{
		{"usage L1", "out basic", 0}, // a read is not progress (strict labels); early: 0
		{"usage L1", "repeat", -1},   // repeated read
		{"line L0", "err", -1},       // not the customer's line: tool error
		{"restart", "ok", -1},        // a write that changes nothing
		{"L1", "invalid", -1},        // malformed
		{"bar", "bars", -1},          // turn 6: an unproductive step late is −1
		{"refuel L1", "ok", 1},       // the expected repair
		{"refuel L1", "ok", -1},      // repeated (and a second charge)
		{"done", "", -1},             // not matched: the extra charge broke the expected state
	})
	assert.Equal(t, 0.0, e.Measures().Reward)

	e = handEpisode(t, "solo", "spec", 0, "quota")
	playTurns(t, e, []turn{
		{"airplane", "ok", 0},  // harmful but early: 0
		{"airplane", "ok", -1}, // repeated (it undoes the harm)
		{"refuel L0", "ok", 1},
		{"done", "", 1}, // the expected close of a finished job
	})
	assert.Equal(t, 1.0, e.Measures().Reward)

	e = handEpisode(t, "solo", "spec", 0, "broken", "data")
	playTurns(t, e, []turn{{"transfer", "", -1}}) // premature: mobile data is still off
	assert.True(t, e.Done())
	e = handEpisode(t, "solo", "spec", 0, "broken", "data")
	playTurns(t, e, []turn{{"data", "ok", 1}, {"transfer", "", 1}})
	assert.Equal(t, 1.0, e.Measures().Reward)
}

func TestSpecDualCritiqueOnEpisodes(t *testing.T) {
	e := handEpisode(t, "dual", "spec", 2, "airplane", "quota")
	playTurns(t, e, []turn{
		{"say bar", "plane", 1},           // the user's check brings new information
		{"usage L2", "out basic", 1},      // the agent's read brings new information
		{"airplane", "err", -1},           // the phone is the user's: no such agent tool
		{"say restart", "no-service", 0},  // a user action that changes nothing, early
		{"say airplane", "no-data", 0},    // the user's repair: never matched for the agent
		{"say data", "no-data", 0},        // turn 6: a harmful user repair is still neutral
		{"say data", "no-data", -1},       // repeated
		{"refuel L2", "ok", 1},            // the agent's matched repair
		{"say test", "works", 1},          // the user stops satisfied
		{"say test", "repeat", -1},        // repeated check
		{"say settings", "off on off", 1}, // new information, even though nothing is left to learn
		{"say restart", "works", -1},      // late, unproductive
		{"done", "", 1},                   // the expected close
	})
	assert.Equal(t, 1.0, e.Measures().Reward)

	e = handEpisode(t, "dual", "spec", 0, "data")
	playTurns(t, e, []turn{
		{"topup L0", "ok", 1},     // a state-changing agent write: +1 even though harmful (noisy critique)
		{"roaming L0", "ok", 1},   // same
		{"roaming L0", "err", -1}, // repeated, and a tool error
		{"say data", "works", 1},  // user stop
		{"transfer", "", -1},      // premature transfer
	})
	assert.Equal(t, 0.0, e.Measures().Reward)
}

func TestConsistentCritiqueOnEpisodes(t *testing.T) {
	e := handEpisode(t, "solo", "consistent", 3, "airplane", "sim")
	playTurns(t, e, []turn{
		{"bar", "plane", 1},          // splits the no-service configurations
		{"test", "no-service", -1},   // every consistent configuration says no-service
		{"settings", "on on off", 1}, // data and data roaming could have been off
		{"line L3", "active off home", 1},
		{"usage L3", "left basic", 1},
		{"newsim L3", "ok", 1},  // an expected repair with effect (whether the agent knew is the splits' business)
		{"reseat", "ok", 1},     // inserts the new SIM: the expected repair
		{"data", "ok", -1},      // harmful
		{"data", "ok", -1},      // repeated
		{"airplane", "ok", 1},   // expected repair
		{"bar", "bars", 1},      // splits: a broken phone would now show nobars
		{"test", "works", -1},   // nothing left to split
		{"usage L1", "err", -1}, // wrong line: a failing read splits nothing
		{"done", "", 1},         // the job is finished
	})
	assert.Equal(t, 1.0, e.Measures().Reward)
}

// TestNoStepIsMatchedAndBad: a matched step is never also malformed,
// repeated, failing or without effect, so checking the −1 conditions before
// or after progress gives the same critique.
func TestNoStepIsMatchedAndBad(t *testing.T) {
	for _, s := range []string{"solo", "dual"} {
		task, err := New(s, DefaultConfig())
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(4, 4))
		weak, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 0.5})
		require.NoError(t, err)
		matched := 0
		for i := 0; i < 300; i++ {
			ep, err := task.NewEpisode(tasks.Train, i)
			require.NoError(t, err)
			e := ep.(*Episode)
			for !e.Done() {
				act := randomTurn(e, rng)
				if rng.IntN(2) == 0 {
					act, err = weak.Act(e, rng)
					require.NoError(t, err)
				}
				_, _, err := e.Step(act)
				require.NoError(t, err)
				f := e.last
				if f.matched {
					matched++
					assert.False(t, f.malformed || f.repeat || f.toolErr || f.write && !f.changed, "%+v", f)
				}
			}
		}
		assert.Greater(t, matched, 300)
	}
}
