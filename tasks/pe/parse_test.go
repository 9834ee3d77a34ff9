package pe

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestParseQuery(t *testing.T) {
	g := newTask(t, tinyConfig()) // PE-G, S = 2, D = 3, M = 6
	fc := tinyConfig()
	fc.Focus = 0
	f := newTask(t, fc) // PE-F
	enc := func(task *Task, ws ...string) []tasks.Token {
		out := make([]tasks.Token, len(ws))
		for i, w := range ws {
			out[i] = task.vocab.ID(w)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		task   *Task
		action []tasks.Token
		want   *Query
	}{
		{"pe-g valid", g, enc(g, "a0", "a2", "m1", "m5"), &Query{[]int{0, 2}, 1, 5}},
		{"pe-g focus in any order", g, enc(g, "a2", "a0", "m5", "m1"), &Query{[]int{0, 2}, 5, 1}},
		{"pe-f valid", f, enc(f, "m3", "m0"), &Query{[]int{0, 1, 2}, 3, 0}},
		{"empty", g, nil, nil},
		{"too short", g, enc(g, "a0", "m1", "m2"), nil},
		{"too long", g, enc(g, "a0", "a1", "a2", "m1", "m2"), nil},
		{"attribute twice", g, enc(g, "a1", "a1", "m1", "m2"), nil},
		{"movie twice", g, enc(g, "a0", "a1", "m2", "m2"), nil},
		{"movie in the focus slot", g, enc(g, "m0", "a1", "m1", "m2"), nil},
		{"attribute in the pair slot", g, enc(g, "a0", "a1", "a2", "m2"), nil},
		{"a number", g, enc(g, "a0", "a1", "3", "m2"), nil},
		{"a reply word", g, enc(g, "a0", "a1", "yes", "m2"), nil},
		{"structure tokens", g, []tasks.Token{tasks.EOT, tasks.BOS, tasks.Pad, 0}, nil},
		{"ids outside the vocabulary", g, []tasks.Token{999, -5, 1 << 30, -1 << 31}, nil},
		{"pe-f attribute", f, enc(f, "a0", "m1"), nil},
		{"pe-f three movies", f, enc(f, "m0", "m1", "m2"), nil},
		{"pe-f out of range", f, []tasks.Token{f.tok.movie0 + 6, f.tok.movie0}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.task.parseQuery(tc.action)
			if tc.want == nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, *tc.want, q)
			again, err := tc.task.parseQuery(tc.task.EncodeQuery(q))
			require.NoError(t, err)
			assert.Equal(t, q, again, "EncodeQuery round-trips")
		})
	}
}

func TestParseGuess(t *testing.T) {
	c := tinyConfig()
	c.GuessLevels = 3 // levels 0..2, while the number tokens go up to 4
	task := newTask(t, c)
	num := func(xs ...int) []tasks.Token {
		out := make([]tasks.Token, len(xs))
		for i, x := range xs {
			out[i] = task.tok.num0 + tasks.Token(x)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		action []tasks.Token
		want   []int
	}{
		{"valid", num(2, 1, 0), []int{2, 1, 0}},
		{"zero vector", num(0, 0, 0), nil},
		{"too short", num(1, 1), nil},
		{"too long", num(1, 1, 1, 1), nil},
		{"level above L−1", num(3, 1, 0), nil},
		{"a movie", []tasks.Token{task.tok.movie0, task.tok.num0, task.tok.num0 + 1}, nil},
		{"structure tokens", []tasks.Token{tasks.Pad, tasks.BOS, tasks.EOT}, nil},
		{"ids outside the vocabulary", []tasks.Token{-1, 500, -1 << 31}, nil},
		{"empty", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := task.parseGuess(tc.action)
			if tc.want == nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, g)
			assert.Equal(t, tc.action, task.EncodeGuess(g))
		})
	}
}
