package rl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
)

// bandit is the smoke tests' task: "the prompt names a token; reply with
// it". Vocabulary: <pad> <bos> <eot> <answer> c0 … c{K−1}. The prompt is
// <bos> c_i <answer>; the one turn is a final BT answer of at most one
// token (so EOT is not needed); reward 1 if the answer is c_i, with
// critique +1, else 0 and −1. A uniform policy over the vocabulary scores
// 1/V.
type bandit struct {
	k     int
	vocab *tasks.Vocab
}

func newBandit(k int) *bandit {
	return &bandit{k: k, vocab: tasks.NewVocab([]string{"<answer>"}, tasks.Prefixed("c", k))}
}

func (b *bandit) Name() string             { return fmt.Sprintf("bandit-%d", b.k) }
func (b *bandit) Vocab() *tasks.Vocab      { return b.vocab }
func (b *bandit) MaxTokens() int           { return 4 }
func (b *bandit) choice(i int) tasks.Token { return b.vocab.ID(fmt.Sprintf("c%d", i)) }
func (b *bandit) BestConstant(tasks.Split, int) (string, float64, error) {
	return "", 0, fmt.Errorf("bandit: no constant answer")
}

func (b *bandit) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	s, err := tasks.InstanceSeed(split, index)
	if err != nil {
		return nil, err
	}
	return &banditEpisode{b: b, want: b.choice(int(mix64(s) % uint64(b.k)))}, nil
}

func (b *bandit) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	if spec.Kind != "strong" {
		return nil, fmt.Errorf("bandit: only the strong policy")
	}
	return banditExpert{}, nil
}

type banditEpisode struct {
	b     *bandit
	want  tasks.Token
	steps []tasks.Step
	right bool
}

func (e *banditEpisode) Prompt() []tasks.Token {
	return []tasks.Token{tasks.BOS, e.want, e.b.vocab.ID("<answer>")}
}
func (e *banditEpisode) Next() tasks.Turn {
	return tasks.Turn{Kind: tasks.BT, Final: true, MaxTokens: 1}
}
func (e *banditEpisode) Done() bool          { return len(e.steps) == 1 }
func (e *banditEpisode) Steps() []tasks.Step { return e.steps }

func (e *banditEpisode) Step(action []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	if e.Done() {
		return nil, tasks.Step{}, fmt.Errorf("bandit: episode over")
	}
	e.right = len(action) == 1 && action[0] == e.want
	st := tasks.Step{Kind: tasks.BT, Final: true, Z: -1, TruthMass: math.NaN(), Malformed: len(action) != 1}
	if e.right {
		st.Z = 1
	}
	e.steps = append(e.steps, st)
	return nil, st, nil
}

func (e *banditEpisode) Measures() tasks.Measures {
	nan := math.NaN()
	m := tasks.Measures{Success: e.right, ASProxy: nan, BTProxy: nan, IAS: nan, CBT: nan, Evidence: nan, Turns: len(e.steps)}
	if e.right {
		m.Reward = 1
	}
	return m
}

type banditExpert struct{}

func (banditExpert) Name() string { return "bandit-expert" }
func (banditExpert) Act(ep tasks.Episode, _ *rand.Rand) ([]tasks.Token, error) {
	return []tasks.Token{ep.(*banditEpisode).want}, nil
}

// tinyPolicy is the tiny preset sized for task (context = its MaxTokens).
func tinyPolicy(t testing.TB, task tasks.Task, seed uint64, valueHead bool) *model.Model {
	cfg, err := model.NewConfig("tiny", task.Vocab().Size(), task.MaxTokens())
	require.NoError(t, err)
	if valueHead {
		cfg = cfg.WithValueHead()
	}
	m, err := model.New(cfg, seed)
	require.NoError(t, err)
	return m
}
