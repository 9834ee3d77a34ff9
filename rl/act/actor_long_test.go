//go:build long

package act

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

// probeArm is one arm of TestActorTermProbe: its final measures and the
// actor's held-out next-action accuracy on the probe subset through the
// stage (Drift[i] after update (i+1)·every; Drift at update 0 is π_θ0's).
type probeArm struct {
	Arm        string    `json:"arm"`
	NextAction float64   `json:"next_action"`
	Choice     float64   `json:"choice"`
	Success    *float64  `json:"success,omitempty"`
	Drift      []float64 `json:"drift"`
	ActorLoss  []float64 `json:"actor_loss,omitempty"`
	Seconds    float64   `json:"seconds"`
}

// TestActorTermProbe makes docs/act.md §15's table: on one environment and
// seed, one π_θ0 and one D_critic (act-table1's run for that environment,
// tableRun), then prompting (π_θ0), the ACT stage as the preset has it
// ("act"), with the expert term ("expert"), the anchor term ("anchor") or
// the greedy term ("greedy"),
// S steps of minibatch 16 after each update at the stage's rate, and the
// controls ("control": π_θ0 given the expert term's steps alone, no GRPO;
// "anchor-control" and "greedy-control": the anchor's or the greedy
// term's steps alone, on the same targets), and the KL anchor at β
// ("kl:β", minibatch 16; its actor_loss is the mean KL to the start of
// the update's steps, without β).
// Each is measured at the end on act-table1's held-out states (next-action
// accuracy under the trie), its held-out critic examples (choice
// accuracy) and its online success (ALFWorld ID, WebShop; ScienceWorld's
// column is the next-action accuracy), and through the stage every E
// updates on a fixed subset of 150 held-out states:
//
//	ACT_PROBE_ENV=alfworld ACT_PROBE_SEED=21 go test -tags long -run TestActorTermProbe -v -timeout 120m ./rl/act
//
// ACT_PROBE_ARMS (default "act,expert,anchor,control"), ACT_PROBE_UPDATES
// (120), ACT_PROBE_STEPS (S, 1), ACT_PROBE_EVERY (E, 20) change the run,
// and ACT_PROBE_GAMES, ACT_PROBE_HELD_OUT, ACT_PROBE_EPISODES its size
// (a quick check; the defaults are act-table1's);
// ACT_PROBE_OUT, a folder, receives probe-<env>-<seed>.json.
func TestActorTermProbe(t *testing.T) {
	envName := envOr("ACT_PROBE_ENV", "alfworld")
	seed, err := strconv.ParseUint(envOr("ACT_PROBE_SEED", "21"), 10, 64)
	require.NoError(t, err)
	atoi := func(k, def string) int {
		n, err := strconv.Atoi(envOr(k, def))
		require.NoError(t, err, k)
		return n
	}
	updates, steps, every := atoi("ACT_PROBE_UPDATES", "120"), atoi("ACT_PROBE_STEPS", "1"), atoi("ACT_PROBE_EVERY", "20")
	arms := strings.Split(envOr("ACT_PROBE_ARMS", "act,expert,anchor,control"), ",")
	cfg := seeded(tableRun(envName, updates), seed, "")
	cfg.Games = atoi("ACT_PROBE_GAMES", strconv.Itoa(cfg.Games))
	cfg.HeldOut = atoi("ACT_PROBE_HELD_OUT", strconv.Itoa(cfg.HeldOut))
	cfg.Episodes = atoi("ACT_PROBE_EPISODES", strconv.Itoa(cfg.Episodes))
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	require.NoError(t, err)
	k, maxAction := cfg.Collect.History, cfg.Collect.MaxAction
	ctx := context.Background()

	t0 := time.Now()
	pairs, err := env.ExpertPairs(textworld.Train, 0, cfg.Games, k)
	require.NoError(t, err)
	held, err := env.ExpertPairs(textworld.Test, 0, cfg.HeldOut, k)
	require.NoError(t, err)
	contextLen := AutoContext(env, pairs, maxAction)
	pi0, _, err := InitialPolicy(ctx, env.Vocab, cfg.Preset, contextLen, pairs, cfg.InitShare, cfg.Choice, cfg.Init, cfg.Seed)
	require.NoError(t, err)
	data, _, err := CriticData(pi0, env, DecodeTrie, textworld.Train, 0, cfg.Games, cfg.Collect)
	require.NoError(t, err)
	heldData, _, err := CriticData(pi0, env, DecodeTrie, textworld.Test, 0, cfg.HeldOut, cfg.Collect)
	require.NoError(t, err)
	data, _ = FitCritic(env, cfg.Choice, data, contextLen)
	heldData, _ = FitCritic(env, cfg.Choice, heldData, contextLen)
	t.Logf("%s seed %d: %d pairs, %d held-out states, D_critic %d (%d held out), π_θ0 and D_critic in %v",
		envName, seed, len(pairs), len(held), len(data), len(heldData), time.Since(t0).Round(time.Second))
	subset := make([]textworld.Pair, 0, 150)
	for i := range min(150, len(held)) {
		subset = append(subset, held[i*len(held)/min(150, len(held))])
	}
	probe := func(m *model.Model) float64 {
		acc, err := NextActionAccuracy(m, env, DecodeTrie, subset, maxAction)
		require.NoError(t, err)
		return acc
	}
	measure := func(arm string, m *model.Model) probeArm {
		r := probeArm{Arm: arm}
		r.NextAction, err = NextActionAccuracy(m, env, DecodeTrie, held, maxAction)
		require.NoError(t, err)
		r.Choice, _, err = ChoiceAccuracy(m, env.Vocab, cfg.Choice, heldData)
		require.NoError(t, err)
		if n := min(cfg.Episodes, env.Sizes.Test); n > 0 {
			on, err := EvaluateOnline(m, env, DecodeTrie, textworld.Test, n, k, maxAction)
			require.NoError(t, err)
			r.Success = &on.Success
		}
		return r
	}
	start := probe(pi0)
	prompting := measure("prompting", pi0)
	prompting.Drift = []float64{start}
	out := []probeArm{prompting}
	term := func(src string) *ActorTerm { return &ActorTerm{Source: src, Steps: steps, MiniBatch: 16} }
	for _, arm := range arms {
		arm = strings.TrimSpace(arm)
		t1 := time.Now()
		r := probeArm{Drift: []float64{start}}
		var m *model.Model
		switch {
		case strings.HasPrefix(arm, "kl:"):
			beta, err := strconv.ParseFloat(strings.TrimPrefix(arm, "kl:"), 64)
			require.NoError(t, err, arm)
			stage := cfg.ACT
			stage.Actor = &ActorTerm{Source: ActorKL, Beta: beta, MiniBatch: 16}
			x := ACTExtras{Pairs: pairs, Decoding: DecodeTrie, MaxAction: maxAction, Each: func(u int, m *model.Model, kl float64) error {
				if u%every == 0 {
					r.Drift = append(r.Drift, probe(m))
					r.ActorLoss = append(r.ActorLoss, kl)
					t.Logf("%s update %d: next action (subset) %.3f, KL to the start %.4f", arm, u, r.Drift[len(r.Drift)-1], kl)
				}
				return nil
			}}
			m, _, err = TrainACTWith(ctx, pi0, env, cfg.Choice, data, stage, x)
			require.NoError(t, err)
		case arm == "act" || arm == "expert" || arm == "anchor" || arm == "greedy":
			stage := cfg.ACT
			if arm != "act" {
				stage.Actor = term(map[string]string{"expert": ActorExpert, "anchor": ActorAnchor, "greedy": ActorGreedy}[arm])
			}
			x := ACTExtras{Pairs: pairs, Decoding: DecodeTrie, MaxAction: maxAction, Each: func(u int, m *model.Model, loss float64) error {
				if u%every == 0 {
					r.Drift = append(r.Drift, probe(m))
					if !math.IsNaN(loss) {
						r.ActorLoss = append(r.ActorLoss, loss)
					}
					t.Logf("%s update %d: next action (subset) %.3f, actor loss %.3f", arm, u, r.Drift[len(r.Drift)-1], loss)
				}
				return nil
			}}
			m, _, err = TrainACTWith(ctx, pi0, env, cfg.Choice, data, stage, x)
			require.NoError(t, err)
		case arm == "control" || arm == "anchor-control" || arm == "greedy-control":
			m, err = pi0.Clone()
			require.NoError(t, err)
			a := *term(map[string]string{"control": ActorExpert, "anchor-control": ActorAnchor, "greedy-control": ActorGreedy}[arm])
			td, err := ActorData(a, env, DecodeTrie, pi0, pairs, maxAction, rand.New(rand.NewPCG(cfg.ACT.GRPO.Seed, 0xa2c4)))
			require.NoError(t, err)
			s, err := newActorStepper(a, m, td, cfg.ACT.GRPO.Policy.Optim.LR, cfg.ACT.GRPO.Seed)
			require.NoError(t, err)
			for u := 1; u <= updates; u++ {
				loss, err := s.step()
				require.NoError(t, err)
				if u%every == 0 {
					r.Drift = append(r.Drift, probe(m))
					r.ActorLoss = append(r.ActorLoss, loss)
				}
			}
			s.Close()
		default:
			t.Fatalf("unknown arm %q", arm)
		}
		f := measure(arm, m)
		f.Drift, f.ActorLoss, f.Seconds = r.Drift, r.ActorLoss, time.Since(t1).Seconds()
		out = append(out, f)
		t.Logf("%s done in %.0f s", arm, f.Seconds)
	}
	var b strings.Builder
	b.WriteString("| arm | success | next action | choice | next action (subset) every " + strconv.Itoa(every) + " updates |\n|---|---|---|---|---|\n")
	for _, r := range out {
		s := "–"
		if r.Success != nil {
			s = fmt.Sprintf("%.1f", 100**r.Success)
		}
		d := make([]string, len(r.Drift))
		for i, x := range r.Drift {
			d[i] = fmt.Sprintf("%.3f", x)
		}
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %s |\n", r.Arm, s, r.NextAction, r.Choice, strings.Join(d, " "))
	}
	t.Logf("%s seed %d, %d updates, S = %d, total %v:\n%s", envName, seed, updates, steps, time.Since(t0).Round(time.Second), b.String())
	if dir := os.Getenv("ACT_PROBE_OUT"); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		buf, err := json.MarshalIndent(map[string]any{"env": envName, "seed": seed, "updates": updates, "steps": steps, "every": every,
			"pairs": len(pairs), "held_out": len(held), "critic": len(data), "held_out_critic": len(heldData), "arms": out}, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("probe-%s-%d.json", envName, seed)), buf, 0o644))
	}
}

// TestActorAnchorHoldsAndPullsBack: the anchor term's data are the start
// policy's own samples, so at π_θ = π_start its steps (many samples per
// state) leave the actor's distribution over the listed commands nearly
// where it was, a small fraction of what the same steps of the expert
// term move it; and from a model the expert term has pushed away, the
// anchor's steps bring it most of the way back.
func TestActorAnchorHoldsAndPullsBack(t *testing.T) {
	f, _, m := actionChoices(t)
	v := f.env.Vocab
	expert := ActorTerm{Source: ActorExpert, Steps: 1, MiniBatch: 16, LR: 1e-2}
	anchor := ActorTerm{Source: ActorAnchor, Steps: 1, MiniBatch: 16, LR: 1e-2}

	pushed := actorSteps(t, expert, f, m, m, 30, 8)
	klPushed := admissibleKL(t, m, pushed, v, f.pairs)
	held := actorSteps(t, anchor, f, m, m, 30, 8)
	klHeld := admissibleKL(t, m, held, v, f.pairs)
	t.Logf("KL(start ‖ ·) over the listed commands: expert steps %.4f, anchor steps %.4f", klPushed, klHeld)
	require.Greater(t, klPushed, 0.05, "the expert term moves the actor")
	assert.Less(t, klHeld, klPushed/5, "at the start the anchor's expected gradient is zero")

	back := actorSteps(t, anchor, f, m, pushed, 30, 8)
	klBack := admissibleKL(t, m, back, v, f.pairs)
	t.Logf("after the anchor's steps from the pushed model: %.4f", klBack)
	assert.Less(t, klBack, klPushed/2, "the anchor pulls the actor back to the start")

	// The greedy term's targets are the start's greedy actions, which the
	// pushed model has left and its steps restore.
	greedy := ActorTerm{Source: ActorGreedy, Steps: 1, MiniBatch: 16, LR: 1e-2}
	data, err := ActorData(greedy, f.env, DecodeTrie, m, f.pairs, DefaultCollect().MaxAction, nil)
	require.NoError(t, err)
	own := make([]textworld.Pair, len(data))
	for i, tr := range data {
		k := tr.Steps[0].Start
		own[i] = textworld.Pair{State: f.pairs[i].State, Expert: tr.Tokens[k : len(tr.Tokens)-1]}
	}
	agree := func(mm *model.Model) float64 {
		acc, err := NextActionAccuracy(mm, f.env, DecodeTrie, own, DefaultCollect().MaxAction)
		require.NoError(t, err)
		return acc
	}
	require.Equal(t, 1.0, agree(m), "the targets are the start's greedy actions")
	restored := actorSteps(t, greedy, f, m, pushed, 30, 8)
	t.Logf("agreement with the start's greedy actions: pushed %.2f, after the greedy term %.2f", agree(pushed), agree(restored))
	assert.Less(t, agree(pushed), 0.8)
	assert.Greater(t, agree(restored), agree(pushed)+0.2)
}

// admissibleKL is the mean over the pairs' states of KL(q_ref ‖ q_m), q
// each model's distribution over the state's listed commands
// (renormalised sequence probabilities): the actor's distribution where
// the trie lets it act.
func admissibleKL(t *testing.T, ref, m *model.Model, v *tasks.Vocab, pairs []textworld.Pair) float64 {
	t.Helper()
	dist := func(mm *model.Model, p textworld.Pair) []float64 {
		lp := make([]float64, len(p.State.Admissible))
		mx := math.Inf(-1)
		for i, a := range p.State.Admissible {
			lp[i] = seqLogp(t, mm, p.State.Tokens(v), a)
			mx = math.Max(mx, lp[i])
		}
		z := 0.0
		for i := range lp {
			lp[i] = math.Exp(lp[i] - mx)
			z += lp[i]
		}
		for i := range lp {
			lp[i] /= z
		}
		return lp
	}
	kl := 0.0
	for _, p := range pairs {
		q0, q1 := dist(ref, p), dist(m, p)
		for i := range q0 {
			kl += q0[i] * (math.Log(q0[i]) - math.Log(q1[i]))
		}
	}
	return kl / float64(len(pairs))
}
