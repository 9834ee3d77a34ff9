package taskstest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"arew/tasks"
)

// CheckScriptedTurns holds tasks.ScriptedTurns to its promise on the first
// n instances of the val split: the scripted policy spec plays every turn
// of kind, the learner (here the scripted policy learner) every other one,
// and the token stream, the judged steps and the measures are exactly those
// of the task's own episode given the same actions. The learner never gets
// a turn of kind. It returns the hybrid's summary.
func CheckScriptedTurns(t T, task tasks.Task, spec tasks.PolicySpec, kind tasks.Kind, learner tasks.PolicySpec, n, maxTurns int) tasks.Summary {
	t.Helper()
	hybrid, err := tasks.ScriptedTurns(task, spec, kind, 7)
	if err != nil {
		t.Fatalf("scripted turns: %v", err)
	}
	if hybrid.MaxTokens() != task.MaxTokens() || !slices.Equal(hybrid.Vocab().Words(), task.Vocab().Words()) {
		t.Fatalf("%s: the hybrid's vocabulary or MaxTokens differ from the task's", hybrid.Name())
	}
	pol, err := task.Scripted(learner)
	if err != nil {
		t.Fatalf("learner: %v", err)
	}
	var ms []tasks.Measures
	for i := range n {
		h, err := hybrid.NewEpisode(tasks.Val, i)
		if err != nil {
			t.Fatalf("%s instance %d: %v", hybrid.Name(), i, err)
		}
		plain, err := task.NewEpisode(tasks.Val, i)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		if err := replay(plain, h.Prompt(), kind); err != nil {
			t.Fatalf("%s instance %d, prompt: %v", hybrid.Name(), i, err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 5))
		for turns := 0; !h.Done(); turns++ {
			if turns >= maxTurns {
				t.Fatalf("%s instance %d: still running after %d learner turns", hybrid.Name(), i, maxTurns)
			}
			if h.Next() != plain.Next() || h.Next().Kind == kind {
				t.Fatalf("%s instance %d: the learner's turn is %+v, the task's %+v", hybrid.Name(), i, h.Next(), plain.Next())
			}
			a, err := pol.Act(plain, rng)
			if err != nil {
				t.Fatalf("instance %d: act: %v", i, err)
			}
			obs, st, err := h.Step(a)
			if err != nil {
				t.Fatalf("%s instance %d: step: %v", hybrid.Name(), i, err)
			}
			pobs, pst, err := plain.Step(a)
			if err != nil {
				t.Fatalf("instance %d: step: %v", i, err)
			}
			if fmt.Sprint(st) != fmt.Sprint(pst) {
				t.Fatalf("%s instance %d: the learner's step is judged %+v, by the task %+v", hybrid.Name(), i, st, pst)
			}
			if len(obs) < len(pobs) || !slices.Equal(obs[:len(pobs)], pobs) {
				t.Fatalf("%s instance %d: observation %v does not start with the task's %v", hybrid.Name(), i, obs, pobs)
			}
			if err := replay(plain, obs[len(pobs):], kind); err != nil {
				t.Fatalf("%s instance %d: %v", hybrid.Name(), i, err)
			}
		}
		if !plain.Done() {
			t.Fatalf("%s instance %d: over, the task's episode is not", hybrid.Name(), i)
		}
		if fmt.Sprint(h.Steps()) != fmt.Sprint(plain.Steps()) || fmt.Sprint(h.Measures()) != fmt.Sprint(plain.Measures()) {
			t.Fatalf("%s instance %d: steps or measures differ from the task's", hybrid.Name(), i)
		}
		ms = append(ms, h.Measures())
	}
	return tasks.Summarize(ms)
}

// replay plays on ep the scripted turns that tokens holds (each an action,
// EOT and the observation) while ep runs and its turn is of kind, and
// reports whether tokens is exactly those turns, the prompt first when ep
// has not started.
func replay(ep tasks.Episode, tokens []tasks.Token, kind tasks.Kind) error {
	if len(ep.Steps()) == 0 {
		p := ep.Prompt()
		if len(tokens) < len(p) || !slices.Equal(tokens[:len(p)], p) {
			return fmt.Errorf("the prompt %v does not start with the task's %v", tokens, p)
		}
		tokens = tokens[len(p):]
	}
	for !ep.Done() && ep.Next().Kind == kind {
		end := slices.Index(tokens, tasks.EOT)
		if end < 0 {
			return fmt.Errorf("a scripted %s turn is missing: %v", kind, tokens)
		}
		obs, _, err := ep.Step(tokens[:end])
		if err != nil {
			return err
		}
		tokens = tokens[end+1:]
		if len(tokens) < len(obs) || !slices.Equal(tokens[:len(obs)], obs) {
			return fmt.Errorf("after a scripted turn: %v, the task observes %v", tokens, obs)
		}
		tokens = tokens[len(obs):]
	}
	if len(tokens) > 0 {
		return fmt.Errorf("%d tokens past the scripted turns", len(tokens))
	}
	return nil
}
