package textworld

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// A small grammar, "go to R N | say w{1,3} .", read token by token: Next
// lists the continuations (EOT where a command may end), keeps only those
// that can still finish within maxWords, and Match accepts exactly the
// commands.
func TestTokenGrammar(t *testing.T) {
	v := NewVocab([]string{"go", "to", "say", "kitchen", "hall", "hello", "there"})
	g := Grammar{
		{One("go"), One("to"), One("kitchen", "hall"), One("1", "2")},
		{One("say"), {Words: []string{"hello", "there"}, Min: 1, Max: 3}, One(".")},
	}
	tg, err := g.Compile(v)
	require.NoError(t, err)
	next := func(prefix string, maxWords int) string {
		return v.Decode(tg.Next(Encode(v, prefix), maxWords))
	}
	assert.Equal(t, "go say", next("", 16))
	assert.Equal(t, "to", next("go", 16))
	assert.Equal(t, "kitchen hall", next("go to", 16))
	assert.Equal(t, "1 2", next("go to hall", 16))
	assert.Equal(t, "<eot>", next("go to hall 2", 16))
	assert.Equal(t, "hello there", next("say", 16))
	assert.Equal(t, ". hello there", next("say hello", 16))
	assert.Equal(t, ". hello there", next("say hello there", 16))
	assert.Equal(t, ".", next("say hello there hello", 16), "at most three words in the slot")
	assert.Equal(t, "<eot>", next("say there .", 16))
	assert.Equal(t, "", next("go hall", 16), "off the grammar: nothing")
	assert.Equal(t, "", next("go to hall 2 .", 16))
	assert.Equal(t, "say", next("", 3), "go to R N needs four words")
	assert.Equal(t, ".", next("say hello", 3), "only room to close")
	assert.Equal(t, "", next("", 2))

	for cmd, ok := range map[string]bool{"go to kitchen 1": true, "say hello .": true, "say hello there there .": true,
		"say .": false, "say hello there there hello .": false, "go to kitchen": false, "go to 1 kitchen": false, "": false} {
		assert.Equal(t, ok, tg.Match(Encode(v, cmd)), "%q", cmd)
	}
	assert.False(t, tg.Match([]tasks.Token{tasks.Token(v.Size())}), "a token outside the vocabulary")

	for name, bad := range map[string]Grammar{
		"unknown word": {{One("fly")}},
		"structure":    {{One("<eot>")}},
		"empty slot":   {{One()}},
		"min 0":        {{{Words: []string{"go"}, Max: 1}}},
		"max < min":    {{{Words: []string{"go"}, Min: 2, Max: 1}}},
		"empty":        {{}},
	} {
		_, err := bad.Compile(v)
		assert.Error(t, err, name)
	}
}
