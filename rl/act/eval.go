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
	// PolicyFailures counts steps whose state did not fit the context or
	// whose action did not end in time (played as the empty action).
	PolicyFailures int `json:"policy_failures"`
}

// EvaluateOnline plays m greedily on the first n instances of split, each
// step shown the last k turns (textworld.Evaluate): success, mean reward,
// the share of "nothing happens" and the repeated failures.
func EvaluateOnline(m *model.Model, env *Env, split textworld.Split, n, k, maxAction int) (Online, error) {
	p, err := NewPolicy("model", m, env.Vocab, maxAction, 0)
	if err != nil {
		return Online{}, err
	}
	r, err := textworld.Evaluate(env.Instances(split), n, p, k, rand.New(rand.NewPCG(1, 1)))
	return Online{Result: r, PolicyFailures: p.Failures}, err
}

// NextActionAccuracy is offline next-action accuracy: the share of pairs
// at which m's greedy action is exactly the expert's.
func NextActionAccuracy(m *model.Model, v *tasks.Vocab, pairs []textworld.Pair, maxAction int) (float64, error) {
	p, err := NewPolicy("model", m, v, maxAction, 0)
	if err != nil {
		return 0, err
	}
	return textworld.Accuracy(pairs, func(s textworld.State) []tasks.Token {
		a, _ := p.Propose(s, nil)
		return a
	}), nil
}

// ChoiceAccuracy is the critic's greedy accuracy on critic examples (the
// share of choices that name the expert's action) and its share of
// answers that do not parse; both 0 for no examples.
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
		prompt, slot := c.Prompt(v)
		budget := format.MaxAnswer(c)
		if len(prompt)+budget > m.Config.Context {
			bad++
			continue
		}
		ans, _, err := g.Generate(prompt, budget, nil)
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
