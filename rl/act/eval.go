package act

import (
	"math/rand/v2"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

// Online is a greedy policy's online result on one split.
type Online struct {
	textworld.Result
	// Decoder is the decoding the policy acted under.
	Decoder string `json:"decoder"`
	// PolicyFailures counts steps whose state did not fit the context or
	// whose action did not end in time (played as the empty action).
	PolicyFailures int `json:"policy_failures"`
	// Malformed is the share of steps whose action is not a command of
	// the grammar (the empty action included). Result.Inapplicable, the
	// share answered "nothing happens", holds these and the well-formed
	// commands that do not apply.
	Malformed float64 `json:"malformed"`
}

// NewEnvPolicy is m acting in env under decoding d, with actions of at
// most maxAction tokens, greedy at temperature 0, counting malformed
// actions by env's grammar.
func NewEnvPolicy(label string, m *model.Model, env *Env, d Decoding, maxAction int, temperature float64) (*Policy, error) {
	p, err := NewPolicy(label, m, env.Vocab, maxAction, temperature)
	if err != nil {
		return nil, err
	}
	if d != DecodeFree {
		p.Constrain = func(s textworld.State) Constraint { return env.Constraint(d, s, maxAction) }
	}
	p.WellFormed = env.wellFormed
	return p, nil
}

// EvaluateOnline plays m greedily under decoding d on the first n
// instances of split, each step shown the last k turns
// (textworld.Evaluate): success, mean reward, the share of "nothing
// happens", the share of malformed actions and the repeated failures.
func EvaluateOnline(m *model.Model, env *Env, d Decoding, split textworld.Split, n, k, maxAction int) (Online, error) {
	return evaluateGames(m, env, d, env.Instances(split), n, k, maxAction)
}

// evaluateGames is EvaluateOnline on the games games(0), …, games(n−1).
func evaluateGames(m *model.Model, env *Env, d Decoding, games func(int) (textworld.Env, error), n, k, maxAction int) (Online, error) {
	p, err := NewEnvPolicy("model", m, env, d, maxAction, 0)
	if err != nil {
		return Online{}, err
	}
	r, err := textworld.Evaluate(games, n, p, k, rand.New(rand.NewPCG(1, 1)))
	on := Online{Result: r, Decoder: d.String(), PolicyFailures: p.Failures}
	if p.Steps > 0 {
		on.Malformed = float64(p.Malformed) / float64(p.Steps)
	}
	return on, err
}

// NextActionAccuracy is offline next-action accuracy: the share of pairs
// at which m's greedy action under decoding d is exactly the expert's.
func NextActionAccuracy(m *model.Model, env *Env, d Decoding, pairs []textworld.Pair, maxAction int) (float64, error) {
	hits, err := NextActionHits(m, env, d, pairs, maxAction)
	return hitShare(hits), err
}

// NextActionHits says, pair by pair, whether m's greedy action under
// decoding d is exactly the expert's.
func NextActionHits(m *model.Model, env *Env, d Decoding, pairs []textworld.Pair, maxAction int) ([]bool, error) {
	p, err := NewEnvPolicy("model", m, env, d, maxAction, 0)
	if err != nil {
		return nil, err
	}
	hits := make([]bool, len(pairs))
	for i, pr := range pairs {
		a, _ := p.Propose(pr.State, nil)
		hits[i] = textworld.Equal(a, pr.Expert)
	}
	return hits, nil
}

// hitShare is the share of hits that are true (0 for none).
func hitShare(hits []bool) float64 {
	if len(hits) == 0 {
		return 0
	}
	n := 0
	for _, h := range hits {
		if h {
			n++
		}
	}
	return float64(n) / float64(len(hits))
}

// ChoiceAccuracy is the critic's greedy accuracy on critic examples (the
// share of choices that name the expert's action) and its share of
// answers that do not parse (or whose prompt does not fit the context);
// both 0 for no examples. Each answer is decoded as the ACT stage samples
// it: under ChoiceAction, the best of the two candidates under their tree
// (so none is malformed), the slot free.
func ChoiceAccuracy(m *model.Model, v *tasks.Vocab, format ChoiceFormat, data []CriticExample) (accuracy, malformed float64, err error) {
	if len(data) == 0 {
		return 0, 0, nil
	}
	g, err := NewGenerator(m, 0)
	if err != nil {
		return 0, 0, err
	}
	right, bad := 0, 0
	for _, c := range data {
		prompt, slot := format.Prompt(v, c)
		budget := format.MaxAnswer(c)
		if len(prompt)+budget > m.Config.Context {
			bad++
			continue
		}
		ans, _, err := g.Generate(prompt, format.Constraint(c), budget, nil)
		if err != nil {
			return 0, 0, err
		}
		pick, perr := format.Parse(v, c, ans)
		switch {
		case perr != nil:
			bad++
		case pick == slot:
			right++
		}
	}
	n := float64(len(data))
	return float64(right) / n, float64(bad) / n, nil
}
