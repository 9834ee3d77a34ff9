package taskstest

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"

	"arew/tasks"
)

// CheckLocked holds a task's locked demonstrator (tasks.NewLocked) to the
// limits every task shares, on the first n instances of the val split.
// task's critiques must be the consistent-set rules, under which a query
// earns +1 exactly when it splits the consistent set C.
//
//   - locked(0, 0) is well formed on every turn, its beliefs before the
//     final one are its first, token for token (the belief is held), and
//     at most splitShare of its queries split C (0 where a task always has
//     a query that cannot split C left);
//   - locked(1, 1) succeeds as often as the strong policy, within tol (the
//     extra draw per turn shifts the random stream of the strong moves).
//
// It returns the two summaries and the strong policy's.
func CheckLocked(t T, task tasks.Task, n, maxTurns int, splitShare, tol float64) (locked, skilled, strong tasks.Summary) {
	t.Helper()
	pol := func(spec tasks.PolicySpec) tasks.Policy {
		p, err := task.Scripted(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec.Kind, err)
		}
		return p
	}
	lock := pol(tasks.PolicySpec{Kind: "locked"})
	if lock.Name() != "locked(0.00,0.00)" {
		t.Fatalf("the locked policy is named %q", lock.Name())
	}
	var ms []tasks.Measures
	splits, queries := 0, 0
	for i := range n {
		ep, err := task.NewEpisode(tasks.Val, i)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 11))
		var first []tasks.Token
		for turns := 0; !ep.Done(); turns++ {
			if turns >= maxTurns {
				t.Fatalf("instance %d: still running after %d turns", i, maxTurns)
			}
			next := ep.Next()
			a, err := lock.Act(ep, rng)
			if err != nil {
				t.Fatalf("instance %d: %v", i, err)
			}
			_, s, err := ep.Step(a)
			if err != nil {
				t.Fatalf("instance %d: %v", i, err)
			}
			if s.Malformed {
				t.Fatalf("instance %d turn %d: the locked demonstrator's turn %v is malformed", i, s.Turn, a)
			}
			switch {
			case next.Kind == tasks.AS:
				queries++
				if s.Z == 1 {
					splits++
				}
			case first == nil:
				first = a
			case !next.Final && !slices.Equal(a, first):
				t.Fatalf("instance %d turn %d: belief %v, not the held %v", i, s.Turn, a, first)
			}
		}
		ms = append(ms, ep.Measures())
	}
	if share := float64(splits) / float64(queries); share > splitShare {
		t.Fatalf("locked(0, 0): %d of %d queries split C (%.3f > %.3f)", splits, queries, share, splitShare)
	}
	locked = tasks.Summarize(ms)
	eval := func(p tasks.Policy) tasks.Summary {
		s, err := tasks.Evaluate(task, p, tasks.Val, n, 5, maxTurns)
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		return s
	}
	skilled = eval(pol(tasks.PolicySpec{Kind: "locked", QAS: 1, QBT: 1}))
	strong = eval(pol(tasks.PolicySpec{Kind: "strong"}))
	if math.Abs(skilled.Success-strong.Success) > tol {
		t.Fatalf("locked(1, 1) succeeds %.3f, strong %.3f: more than %.3f apart", skilled.Success, strong.Success, tol)
	}
	return locked, skilled, strong
}

// CheckStyles holds a task's styles (tasks.StyleGroups) to their promise:
// with Style "careful" or "hasty" added to layout (the task's JSON
// overrides, an object without Style), the prompt carries the style token
// right after BOS, both styles share one vocabulary, two tokens larger
// than the plain layout's, and nothing else changes: the strong policy's
// stream on a few instances is the plain one with the style token
// inserted. A style outside the two is an error.
func CheckStyles(t T, name string, layout map[string]any) {
	t.Helper()
	build := func(style string) tasks.Task {
		cfg := map[string]any{}
		for k, v := range layout {
			cfg[k] = v
		}
		if style != "" {
			cfg["Style"] = style
		}
		raw, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("layout: %v", err)
		}
		task, err := tasks.New(name, raw)
		if err != nil {
			t.Fatalf("style %q: %v", style, err)
		}
		return task
	}
	plain := build("")
	var words [][]string
	for _, style := range []string{tasks.Careful, tasks.Hasty} {
		task := build(style)
		words = append(words, task.Vocab().Words())
		if task.Vocab().Size() != plain.Vocab().Size()+2 {
			t.Fatalf("style %s: %d tokens, the plain layout %d", style, task.Vocab().Size(), plain.Vocab().Size())
		}
		tok := tasks.StyleToken(task.Vocab(), style)
		for i := range 3 {
			got := Stream(t, task, tasks.PolicySpec{Kind: "strong"}, tasks.Val, i, 1)
			want := Stream(t, plain, tasks.PolicySpec{Kind: "strong"}, tasks.Val, i, 1)
			want = slices.Insert(want, 1, tok)
			if !slices.Equal(got, want) {
				t.Fatalf("style %s, instance %d: the stream is not the plain one with %s after BOS", style, i, task.Vocab().Word(tok))
			}
		}
	}
	if !slices.Equal(words[0], words[1]) {
		t.Fatalf("the two styles have different vocabularies")
	}
	if _, err := tasks.New(name, []byte(`{"Style": "sloppy"}`)); err == nil {
		t.Fatalf(`Style "sloppy" was accepted`)
	}
}
