package pe

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"arew/tasks"
)

// turn is one agent action and the critique it must get.
type turn struct {
	action func(e *Episode) []tasks.Token
	z      int8
}

func q(focus []int, a, b int) func(*Episode) []tasks.Token {
	return func(e *Episode) []tasks.Token { return ask(e, focus, a, b) }
}

func g(levels ...int) func(*Episode) []tasks.Token {
	return func(e *Episode) []tasks.Token { return say(e, levels...) }
}

func junk(*Episode) []tasks.Token { return []tasks.Token{tasks.Pad} }

func playTurns(t *testing.T, e *Episode, turns []turn) {
	t.Helper()
	for i, tu := range turns {
		_, st := step(t, e, tu.action(e))
		assert.Equal(t, tu.z, st.Z, "turn %d (%s)", i, st.Text)
	}
}

// The spec's rules (docs/arew.md §4), one case per rule, on the hand-built
// instance w* = (0.6, 0.3, 0.1). cos(w*, ·): flat 0.851, (4 2 1) 0.997,
// (0 0 4) 0.147, (4 4 1) 0.950.
func TestSpecCritiques(t *testing.T) {
	for _, tc := range []struct {
		name   string
		freeze bool
		turns  []turn
	}{
		{"AS: malformed −1; BT after it 0 even when cos rises", false, []turn{
			{junk, -1}, {g(4, 2, 1), 0}}},
		{"AS: dominated −1; BT after it 0", false, []turn{
			{q([]int{0, 1}, 2, 3), -1}, {g(4, 2, 1), 0}}},
		{"AS: repeated −1; BT after it 0", false, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(4, 4, 1), 1},
			{q([]int{0, 1}, 1, 0), -1}, {g(4, 2, 1), 0}}},
		{"AS: non-dominated +1; BT: cos up +1", false, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(4, 2, 1), 1}}},
		{"BT: cos down −1", false, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(0, 0, 4), -1}}},
		{"BT: the same direction 0", false, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(1, 1, 1), 0}}},
		{"BT: a malformed guess −1", false, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {junk, -1}}},
		{"BT: compared with the last valid guess", false, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(4, 4, 1), 1},
			{q([]int{1, 2}, 1, 2), 1}, {junk, -1},
			{q([]int{0, 1}, 5, 4), 1}, {g(4, 4, 1), 0}}},
		{"freeze: unchanged after an informative query −1", true, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(1, 1, 1), -1}}},
		{"freeze: unchanged after a dominated query stays 0", true, []turn{
			{q([]int{0, 1}, 2, 3), -1}, {g(1, 1, 1), 0}}},
		{"freeze: a move is judged by the sign rule", true, []turn{
			{q([]int{0, 1}, 0, 1), 1}, {g(4, 2, 1), 1},
			{q([]int{1, 2}, 1, 2), 1}, {g(0, 0, 4), -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := handEpisode(t, func(c *Config) { c.FreezePenalty = tc.freeze }, nil)
			playTurns(t, e, tc.turns)
		})
	}
}

// The consistent-set rules on a hand-made hypothesis set: w* = (0.6 0.3 0.1)
// and the particles h0 = (0.1 0.6 0.3), h1 = (0.5 0.4 0.1),
// h2 = (0.3 0.3 0.4). Their replies (tol 0.3):
//
//	query             w*     h0    h1     h2
//	a0 a1: m5 vs m4   equal  yes   equal  yes     splits {w*,h0,h1,h2}
//	a1 a2: m1 vs m2   yes    yes   yes    equal   non-dominated, no split of {w*,h1}
//	a0 a1: m0 vs m1   yes    no    equal  equal   splits {w*,h1}
//	a0 a1: m2 vs m3   yes    yes   yes    yes     dominated
func TestConsistentCritiques(t *testing.T) {
	ws := [][]float64{{0.1, 0.6, 0.3}, {0.5, 0.4, 0.1}, {0.3, 0.3, 0.4}}
	for _, tc := range []struct {
		name   string
		freeze bool
		turns  []turn
		sizeC  int
	}{
		{"AS: a split +1; BT: consistent after an elimination +1", false, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(2, 1, 0), 1}}, 2},
		{"BT: a guess that contradicts a reply −1", false, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(1, 2, 0), -1}}, 2},
		{"AS: non-dominated but no split −1; BT: consistent, nothing eliminated 0", false, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(2, 1, 0), 1},
			{q([]int{1, 2}, 1, 2), -1}, {g(4, 2, 1), 0}}, 2},
		{"AS: dominated −1", false, []turn{
			{q([]int{0, 1}, 2, 3), -1}, {g(2, 2, 2), 0}}, 4},
		{"AS: repeated −1; BT after it: consistent 0, inconsistent −1", false, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(2, 1, 0), 1},
			{q([]int{1, 0}, 4, 5), -1}, {g(4, 2, 1), 0},
			{q([]int{0, 1}, 4, 5), -1}, {g(1, 2, 0), -1}}, 2},
		{"AS: nothing left to split 0", false, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(2, 1, 0), 1},
			{q([]int{0, 1}, 0, 1), 1}, {g(4, 2, 1), 1},
			{q([]int{1, 2}, 1, 2), 0}, {g(4, 2, 1), 0}}, 1},
		{"AS: malformed −1; BT: malformed −1", false, []turn{
			{junk, -1}, {junk, -1}}, 4},
		{"freeze: the same direction after an elimination −1", true, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(2, 1, 0), 1},
			{q([]int{0, 1}, 0, 1), 1}, {g(4, 2, 0), -1}}, 1},
		{"freeze: the same direction with nothing eliminated 0", true, []turn{
			{q([]int{0, 1}, 5, 4), 1}, {g(2, 1, 0), 1},
			{q([]int{1, 2}, 1, 2), -1}, {g(4, 2, 0), 0}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := handEpisode(t, func(c *Config) {
				c.Critiques = "consistent"
				c.FreezePenalty = tc.freeze
			}, ws)
			playTurns(t, e, tc.turns)
			assert.Equal(t, tc.sizeC, e.ConsistentSize())
		})
	}
}

// The table in TestConsistentCritiques, checked against reply.
func TestConsistentCritiquesTable(t *testing.T) {
	inst := handInstance()
	hyps := [][]float64{inst.truth, {0.1, 0.6, 0.3}, {0.5, 0.4, 0.1}, {0.3, 0.3, 0.4}}
	for _, tc := range []struct {
		q    Query
		want []Reply
	}{
		{Query{[]int{0, 1}, 5, 4}, []Reply{Equal, Yes, Equal, Yes}},
		{Query{[]int{1, 2}, 1, 2}, []Reply{Yes, Yes, Yes, Equal}},
		{Query{[]int{0, 1}, 0, 1}, []Reply{Yes, No, Equal, Equal}},
		{Query{[]int{0, 1}, 2, 3}, []Reply{Yes, Yes, Yes, Yes}},
	} {
		for h, w := range hyps {
			assert.Equal(t, tc.want[h], reply(w, tc.q, inst.table, 0.3), "query %v, hypothesis %d", tc.q, h)
		}
	}
}
