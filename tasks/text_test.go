package tasks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testFace() *TextFace {
	v := NewVocab([]string{"<ask>", "<answer>", "<cf>", "YES", "NO"}, Prefixed("q", 3), Numbers(4))
	return NewTextFace(v, TextFormat{
		System:  "Ask, then answer.",
		Phrases: map[string]string{"<bos>": "Table:", "<ask>": "\nYour move.", "q0": "\nq0:", "NO": ""},
		Aliases: map[string]string{"|": "<cf>"},
	})
}

func TestTextParse(t *testing.T) {
	f := testFace()
	v := f.vocab
	turn := Turn{Kind: BT, MaxTokens: 5} // up to four words
	for _, c := range []struct {
		name, text string
		want       []string // nil: malformed
		span       string
	}{
		{"bare words", "1 2 3", []string{"1", "2", "3"}, "1 2 3"},
		{"last line", "I think so.\n\n  1 2 3  \n\n", []string{"1", "2", "3"}, "1 2 3"},
		{"tags", "think <answer>q1</answer> and more", []string{"q1"}, "q1"},
		{"last tag wins", "<answer>q0</answer> no: <ANSWER> q2 </Answer>", []string{"q2"}, "q2"},
		{"unclosed tag", "<answer> 0 1\n 2", []string{"0", "1", "2"}, "0 1\n 2"},
		{"label", "Final answer: q1", []string{"q1"}, "Final answer: q1"},
		{"case", "Q1", []string{"q1"}, "Q1"},
		{"commas and brackets", "[0, 1, (2); \"3\"]", []string{"0", "1", "2", "3"}, "[0, 1, (2); \"3\"]"},
		{"full stop", "q2.", []string{"q2"}, "q2."},
		{"alias", "0 | 1", []string{"0", "<cf>", "1"}, "0 | 1"},
		{"header word is a word", "<ask>", []string{"<ask>"}, "<ask>"},
		{"empty", "", []string{}, ""},
		{"empty tags", "<answer></answer>", []string{}, ""},
		{"unknown word", "q9", nil, "q9"},
		{"structure token", "<eot>", nil, "<eot>"},
		{"too many words", "0 1 2 3 0", nil, "0 1 2 3 0"},
		{"code fence", "The move:\n```\nq2\n```\n", []string{"q2"}, "q2"},
		{"markdown", "### **Move:** `q1`", []string{"q1"}, "### **Move:** `q1`"},
		{"a word is no label", "q1: q2", []string{"q1", "q2"}, "q1: q2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := f.Parse(turn, c.text)
			assert.Equal(t, c.span, p.Span)
			if c.want == nil {
				assert.True(t, p.Malformed)
				assert.NotEmpty(t, p.Reason)
				assert.Equal(t, []Token{Pad}, p.Tokens)
				return
			}
			assert.False(t, p.Malformed, p.Reason)
			assert.Equal(t, v.Decode(p.Tokens), strings.Join(c.want, " "))
			assert.Len(t, p.Tokens, len(c.want))
		})
	}
}

func TestTextFoldingKeepsCaseDistinctWordsExact(t *testing.T) {
	f := NewTextFace(NewVocab([]string{"yes", "YES", "Maybe"}), TextFormat{})
	turn := Turn{MaxTokens: 3}
	assert.Equal(t, []Token{3}, f.Parse(turn, "yes").Tokens)
	assert.Equal(t, []Token{4}, f.Parse(turn, "YES").Tokens)
	assert.True(t, f.Parse(turn, "Yes").Malformed, "ambiguous under folding")
	assert.Equal(t, []Token{5}, f.Parse(turn, "MAYBE").Tokens)
}

func TestTextRender(t *testing.T) {
	f := testFace()
	v := f.vocab
	toks := v.Encode("q0", "YES", "NO", "q1", "YES", "<ask>")
	assert.Equal(t, "Table:\nq0: YES q1 YES\nYour move.", f.Render(append([]Token{BOS}, toks...)))
	assert.Equal(t, "<?99> <pad>", f.Render([]Token{99, Pad}), "ids outside the vocabulary render, never panic")
	assert.Equal(t, "", f.Render(nil))
	require.Contains(t, f.System(), AnswerRules)
}

func TestTextFormatRoundTrip(t *testing.T) {
	f := testFace()
	turn := Turn{MaxTokens: 4}
	for _, a := range [][]Token{{}, f.vocab.Encode("q2"), f.vocab.Encode("<cf>", "YES", "3")} {
		assert.Equal(t, a, f.Parse(turn, f.Format(a)).Tokens)
	}
}

func FuzzTextParse(f *testing.F) {
	for _, s := range []string{"", "q1", "<answer>0 1</answer>", "Move: 0, 1.", "<answer>", "é:q1", "\n\n"} {
		f.Add(s)
	}
	face := testFace()
	f.Fuzz(func(t *testing.T, text string) {
		p := face.Parse(Turn{MaxTokens: 5}, text)
		if p.Malformed {
			require.Equal(t, []Token{Pad}, p.Tokens)
			require.NotEmpty(t, p.Reason)
			return
		}
		require.LessOrEqual(t, len(p.Tokens), 4)
		for _, tok := range p.Tokens {
			require.True(t, tok >= Token(len(structureWords)) && int(tok) < face.vocab.Size())
		}
		// Reading the canonical text of what was read gives the same move.
		require.Equal(t, p.Tokens, face.Parse(Turn{MaxTokens: 5}, face.Format(p.Tokens)).Tokens)
	})
}
