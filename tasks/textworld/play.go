package textworld

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Policy is a scripted agent. Scripted policies may read the environment
// (the expert asks its planner); learned ones use only the state.
type Policy interface {
	Name() string
	Act(env Env, s State, rng *rand.Rand) []tasks.Token
}

// Expert follows the environment's planner.
type Expert struct{}

func (Expert) Name() string { return "expert" }

func (Expert) Act(env Env, _ State, _ *rand.Rand) []tasks.Token { return env.Expert() }

// RandomAdmissible picks uniformly among the listed admissible actions.
type RandomAdmissible struct{}

func (RandomAdmissible) Name() string { return "random" }

func (RandomAdmissible) Act(_ Env, s State, rng *rand.Rand) []tasks.Token {
	if len(s.Admissible) == 0 {
		return nil
	}
	return s.Admissible[rng.IntN(len(s.Admissible))]
}

// Step is one decision of a trajectory: the state shown, the action taken,
// whether it was admissible, and the observation that followed.
type Step struct {
	State      State
	Action     []tasks.Token
	Admissible bool
	Next       []tasks.Token
}

// Trajectory is a played episode.
type Trajectory struct {
	Steps   []Step
	Reward  float64
	Success bool
}

// Play runs policy on env until it is done, showing it the last k turns.
func Play(env Env, p Policy, k int, rng *rand.Rand) (Trajectory, error) {
	var tr Trajectory
	var past []Turn
	for !env.Done() {
		s := Snapshot(env, past, k)
		a := append([]tasks.Token(nil), p.Act(env, s, rng)...)
		adm := env.IsAdmissible(a)
		obs, err := env.Step(a)
		if err != nil {
			return tr, fmt.Errorf("play %s: %w", p.Name(), err)
		}
		tr.Steps = append(tr.Steps, Step{State: s, Action: a, Admissible: adm, Next: obs})
		past = append(past, Turn{Obs: s.Obs, Action: a})
	}
	tr.Reward, tr.Success = env.Reward(), env.Success()
	return tr, nil
}

// RepeatedFailures counts the failure loops of the ACT paper's case study:
// steps that repeat the previous action right after it got NothingHappens.
func (tr Trajectory) RepeatedFailures(v *tasks.Vocab) int {
	nothing := v.Encode(NothingHappens...)
	n := 0
	for i := 1; i < len(tr.Steps); i++ {
		prev := tr.Steps[i-1]
		if Equal(prev.Next, nothing) && Equal(prev.Action, tr.Steps[i].Action) {
			n++
		}
	}
	return n
}

// Result summarises a policy over episodes.
type Result struct {
	Policy     string
	Episodes   int
	MeanReward float64
	Success    float64
	MeanSteps  float64
	// Inapplicable is the fraction of steps answered NothingHappens.
	Inapplicable float64
	// RepeatedFailures is the mean of Trajectory.RepeatedFailures.
	RepeatedFailures float64
}

// Evaluate plays p on instances 0 … n−1 made by newEnv; rng seeds the policy.
func Evaluate(newEnv func(index int) (Env, error), n int, p Policy, k int, rng *rand.Rand) (Result, error) {
	r := Result{Policy: p.Name(), Episodes: n}
	steps, nothing := 0, 0
	for i := 0; i < n; i++ {
		env, err := newEnv(i)
		if err != nil {
			return r, err
		}
		tr, err := Play(env, p, k, rng)
		if err != nil {
			return r, err
		}
		nh := env.Vocab().Encode(NothingHappens...)
		for _, s := range tr.Steps {
			if Equal(s.Next, nh) {
				nothing++
			}
		}
		steps += len(tr.Steps)
		r.MeanReward += tr.Reward
		if tr.Success {
			r.Success++
		}
		r.RepeatedFailures += float64(tr.RepeatedFailures(env.Vocab()))
	}
	if n > 0 {
		r.MeanReward /= float64(n)
		r.Success /= float64(n)
		r.RepeatedFailures /= float64(n)
		r.MeanSteps = float64(steps) / float64(n)
	}
	if steps > 0 {
		r.Inapplicable = float64(nothing) / float64(steps)
	}
	return r, nil
}

// Pair is one (state, expert action) example of a dataset.
type Pair struct {
	State  State
	Expert []tasks.Token
}

// ExpertPairs plays the expert on env and returns its (state, action)
// pairs, with the last k turns in each state.
func ExpertPairs(env Env, k int) ([]Pair, error) {
	tr, err := Play(env, Expert{}, k, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Pair, len(tr.Steps))
	for i, s := range tr.Steps {
		out[i] = Pair{State: s.State, Expert: s.Action}
	}
	return out, nil
}

// Dataset is the offline data of games 0 … n−1 of split of w: the
// expert's (state, action) pairs of every game, each state with the last k
// turns. A test split's pairs are the held-out states of next-action
// accuracy.
func Dataset(w World, split Split, n, k int) ([]Pair, error) {
	var out []Pair
	for i := 0; i < n; i++ {
		e, err := w.Env(split)(i)
		if err != nil {
			return nil, err
		}
		ps, err := ExpertPairs(e, k)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// Accuracy is offline next-action accuracy: the fraction of pairs where
// predict returns exactly the expert action (NaN-free: 0 for no pairs).
func Accuracy(pairs []Pair, predict func(State) []tasks.Token) float64 {
	if len(pairs) == 0 {
		return 0
	}
	hit := 0
	for _, p := range pairs {
		if Equal(predict(p.State), p.Expert) {
			hit++
		}
	}
	return float64(hit) / float64(len(pairs))
}
