package act

import (
	"fmt"
	"math"

	"arew/tasks"
	"arew/tasks/textworld"
)

// The adapters that let rl's trainers run unchanged: a single-turn
// tasks.Task whose instance i is example i of a dataset. An episode is the
// prompt, one agent turn of at most MaxTokens tokens (EOT included), and
// the shaped reward of that turn; there is no observation after it.

// judged is the verdict on one answer.
type judged struct {
	parsed, expert, admissible bool
}

// example is one prompt, the judge of its answer and, under constrained
// decoding, what the answer may be (nil: free).
type example struct {
	prompt []tasks.Token
	judge  func(answer []tasks.Token) judged
	allow  Constraint
}

// singleTask is a dataset of single-turn examples as a tasks.Task.
type singleTask struct {
	name        string
	vocab       *tasks.Vocab
	shaping     Shaping
	maxAnswer   int // the turn's MaxTokens, EOT included
	train, test []example
	maxTokens   int
	masked      bool // some example has a constraint (rl.MaskedTask)
}

func newSingleTask(name string, v *tasks.Vocab, sh Shaping, maxAnswer int, train, test []example) (*singleTask, error) {
	if err := sh.Validate(); err != nil {
		return nil, err
	}
	if len(train) == 0 {
		return nil, fmt.Errorf("%s: no training examples", name)
	}
	if maxAnswer < 1 {
		return nil, fmt.Errorf("%s: an answer needs at least one token, got %d", name, maxAnswer)
	}
	t := &singleTask{name: name, vocab: v, shaping: sh, maxAnswer: maxAnswer, train: train, test: test}
	for _, set := range [][]example{train, test} {
		for _, e := range set {
			t.maxTokens = max(t.maxTokens, len(e.prompt)+maxAnswer)
			t.masked = t.masked || e.allow != nil
		}
	}
	return t, nil
}

// Masked reports whether the answers are decoded under a constraint: rl's
// rollout then samples each token from the policy renormalised over the
// allowed tokens and its trainer takes the log-probs under the same mask
// (rl.MaskedTask).
func (t *singleTask) Masked() bool { return t.masked }

func (t *singleTask) Name() string        { return t.name }
func (t *singleTask) Vocab() *tasks.Vocab { return t.vocab }
func (t *singleTask) MaxTokens() int      { return t.maxTokens }

func (t *singleTask) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	set := t.train
	if split == tasks.Test {
		set = t.test
	} else if split != tasks.Train {
		return nil, fmt.Errorf("%s: unknown split %v", t.name, split)
	}
	if index < 0 || index >= len(set) {
		return nil, fmt.Errorf("%s: example %d outside the %v set [0, %d)", t.name, index, split, len(set))
	}
	return &singleEpisode{task: t, ex: set[index]}, nil
}

func (t *singleTask) Scripted(tasks.PolicySpec) (tasks.Policy, error) {
	return nil, fmt.Errorf("%s: a dataset task has no scripted policies", t.name)
}

func (t *singleTask) BestConstant(tasks.Split, int) (string, float64, error) {
	return "", 0, fmt.Errorf("%s: a dataset task has no constant answer", t.name)
}

// singleEpisode is one example being answered.
type singleEpisode struct {
	task  *singleTask
	ex    example
	steps []tasks.Step
	m     tasks.Measures
}

func (e *singleEpisode) Prompt() []tasks.Token { return e.ex.prompt }

func (e *singleEpisode) Next() tasks.Turn {
	return tasks.Turn{Kind: tasks.AS, Final: true, MaxTokens: e.task.maxAnswer}
}

func (e *singleEpisode) Done() bool { return len(e.steps) > 0 }

func (e *singleEpisode) Steps() []tasks.Step { return e.steps }

func (e *singleEpisode) Measures() tasks.Measures { return e.m }

// Allowed is the example's constraint after the answer's tokens so far
// (rl.MaskedEpisode); nil, any token, for a free example.
func (e *singleEpisode) Allowed(turn []tasks.Token) []tasks.Token {
	if e.ex.allow == nil {
		return nil
	}
	return e.ex.allow.Next(turn)
}

// Step judges the answer (EOT excluded). An answer as long as the turn
// allows never reached EOT: it is unfinished, so it does not parse.
func (e *singleEpisode) Step(answer []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	if e.Done() {
		return nil, tasks.Step{}, fmt.Errorf("%s: step after the end of the episode", e.task.name)
	}
	j := judged{}
	if len(answer) < e.task.maxAnswer {
		j = e.ex.judge(answer)
	}
	r := e.task.shaping.Reward(j.parsed, j.expert, j.admissible)
	z := int8(-1)
	if j.expert && j.parsed {
		z = 1
	}
	st := tasks.Step{Kind: tasks.AS, Final: true, Z: z, Malformed: !j.parsed, TruthMass: math.NaN(),
		Text: e.task.vocab.Decode(answer)}
	e.steps = append(e.steps, st)
	nan := math.NaN()
	e.m = tasks.Measures{Reward: r, Success: j.parsed && j.expert, ASProxy: b2f(z == 1), BTProxy: nan, IAS: nan,
		CBT: nan, Evidence: nan, Turns: 1}
	if st.Malformed {
		e.m.Malformed = 1
	}
	return nil, st, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// choiceExamples turns D_critic into choice prompts judged by the format's
// Parse: parsed when the answer names a slot ("1" or "2", or one of the
// two actions written out); expert when it names the expert's slot (so
// R_acc = 1 exactly when the written action is the expert's); admissible
// when the named action applies (the expert's always does). Under
// ChoiceAction the answer is decoded under the tree of the two candidates
// (ChoiceFormat.Constraint), so the task is masked.
func choiceExamples(v *tasks.Vocab, format ChoiceFormat, data []CriticExample) []example {
	out := make([]example, len(data))
	for i, c := range data {
		prompt, slot := format.Prompt(v, c)
		altOK := c.AltAdmissible
		out[i] = example{prompt: prompt, judge: func(answer []tasks.Token) judged {
			pick, err := format.Parse(v, c, answer)
			if err != nil {
				return judged{}
			}
			return judged{parsed: true, expert: pick == slot, admissible: pick == slot || altOK}
		}, allow: format.Constraint(c)}
	}
	return out
}

// actionExamples turns expert pairs into next-action prompts: parsed when
// the answer is a command of the grammar, expert when it equals the
// expert's action token for token, admissible when it applies at the
// state; decoded under d's constraint at the state, for answers of at
// most maxAction tokens.
func actionExamples(env *Env, d Decoding, maxAction int, pairs []textworld.Pair) []example {
	out := make([]example, len(pairs))
	for i, p := range pairs {
		out[i] = example{prompt: p.State.Tokens(env.Vocab), judge: func(answer []tasks.Token) judged {
			if !env.wellFormed(answer) {
				return judged{}
			}
			return judged{parsed: true, expert: textworld.Equal(answer, p.Expert), admissible: env.Admits(p.State, answer)}
		}, allow: env.Constraint(d, p.State, maxAction)}
	}
	return out
}

// ChoiceTask is D_critic (train) and held-out critic examples (test) as
// the single-turn task of the ACT stage: the answer is the pick in the
// format and EOT, within the budget of the longest answer the data needs.
func ChoiceTask(env *Env, format ChoiceFormat, sh Shaping, train, test []CriticExample) (tasks.Task, error) {
	if err := format.Validate(); err != nil {
		return nil, err
	}
	budget := 2
	for _, set := range [][]CriticExample{train, test} {
		for _, c := range set {
			budget = max(budget, format.MaxAnswer(c))
		}
	}
	return newSingleTask(env.Name+"-choice", env.Vocab, sh, budget, choiceExamples(env.Vocab, format, train), choiceExamples(env.Vocab, format, test))
}

// ActionTask is the expert states (train) and held-out ones (test) as the
// single-turn task of the RL stage: the answer is an action and EOT, of at
// most maxAction tokens, decoded under d.
func ActionTask(env *Env, sh Shaping, d Decoding, maxAction int, train, test []textworld.Pair) (tasks.Task, error) {
	return newSingleTask(env.Name+"-action", env.Vocab, sh, maxAction+1,
		actionExamples(env, d, maxAction, train), actionExamples(env, d, maxAction, test))
}
