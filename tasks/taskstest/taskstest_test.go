package taskstest

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"arew/tasks"
)

func TestTurnsFromBytes(t *testing.T) {
	got := TurnsFromBytes([]byte{5, 0xFF, TurnSeparator, TurnSeparator, 7})
	assert.Equal(t, [][]tasks.Token{{5, -1}, {}, {7}}, got)
	assert.Equal(t, [][]tasks.Token{{}}, TurnsFromBytes(nil))
}

// toy is a two-turn task whose faults can be switched on, to prove that
// CheckEpisode notices each broken promise.
type toy struct {
	badObs, longStream, noEnd, stepAfterEnd bool
}

type toyEpisode struct {
	task  *toy
	steps []tasks.Step
}

func (k *toy) Name() string                                    { return "toy" }
func (k *toy) Vocab() *tasks.Vocab                             { return tasks.NewVocab([]string{"a", "b"}) }
func (k *toy) MaxTokens() int                                  { return 10 }
func (k *toy) Scripted(tasks.PolicySpec) (tasks.Policy, error) { return nil, nil }
func (k *toy) BestConstant(tasks.Split, int) (string, float64, error) {
	return "", 0, nil
}
func (k *toy) NewEpisode(tasks.Split, int) (tasks.Episode, error) { return &toyEpisode{task: k}, nil }

func (e *toyEpisode) Prompt() []tasks.Token { return []tasks.Token{tasks.BOS, 3} }
func (e *toyEpisode) Next() tasks.Turn      { return tasks.Turn{Kind: tasks.AS, MaxTokens: 2} }
func (e *toyEpisode) Done() bool            { return len(e.steps) == 2 && !e.task.noEnd }
func (e *toyEpisode) Steps() []tasks.Step   { return e.steps }
func (e *toyEpisode) Measures() tasks.Measures {
	return tasks.Measures{Turns: len(e.steps), BTProxy: math.NaN(), CBT: math.NaN(), Evidence: math.NaN()}
}
func (e *toyEpisode) Step([]tasks.Token) ([]tasks.Token, tasks.Step, error) {
	if e.Done() && !e.task.stepAfterEnd {
		return nil, tasks.Step{}, fmt.Errorf("over")
	}
	s := tasks.Step{Turn: len(e.steps), Kind: tasks.AS}
	e.steps = append(e.steps, s)
	obs := []tasks.Token{4}
	switch {
	case e.task.badObs:
		obs = []tasks.Token{99}
	case e.task.longStream:
		obs = []tasks.Token{4, 4, 4, 4}
	}
	return obs, s, nil
}

// recorder is a T whose Fatalf stops the check by panicking.
type recorder struct{ msg string }

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

func check(task *toy) (msg string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		msg = r.msg
	}()
	ep, _ := task.NewEpisode(tasks.Test, 0)
	CheckEpisode(r, task, ep, nil, 2)
	return ""
}

func TestCheckEpisodeCatchesBrokenPromises(t *testing.T) {
	assert.Empty(t, check(&toy{}), "a well-behaved episode passes")
	assert.Contains(t, check(&toy{badObs: true}), "outside the vocabulary")
	assert.Contains(t, check(&toy{longStream: true}), "more than MaxTokens")
	assert.Contains(t, check(&toy{noEnd: true}), "still running")
	assert.Contains(t, check(&toy{stepAfterEnd: true}), "after the end")
}
