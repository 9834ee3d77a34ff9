package textworld

import (
	"fmt"
	"strings"

	"arew/tasks"
)

// The section markers of a rendered state (State.Tokens) and the words the
// ACT pipeline's prompts and templated reflections are made of; every
// environment's vocabulary starts with them, after the structure tokens.
var Markers = []string{
	"<task>", "<obs>", "<act>", "<adm>", "<sep>",
	// the critic prompt: "Action 1 : … Action 2 : … <choose>" → "1" or "2"
	"<choose>", "action", ":",
	// templated reflections (Early Experience)
	"<reflect>", "expert", "alternative", "->", "so", "is", "better",
}

// MaxNumber is the largest number word of the shared vocabulary: numbers
// "0" … "MaxNumber" are single tokens (instance numbers, prices, counts).
const MaxNumber = 100

// NothingHappens is the observation of a command that is not applicable
// (or does not parse): the state does not change.
var NothingHappens = []string{"nothing", "happens", "."}

// CoreWords are Markers, NothingHappens and the numbers 0 … MaxNumber.
func CoreWords() []string {
	out := append([]string(nil), Markers...)
	out = append(out, NothingHappens...)
	return append(out, tasks.Numbers(MaxNumber+1)...)
}

// NewVocab is the vocabulary of an environment: the structure tokens, the
// core words, then its own word groups; a word already present is skipped
// (environments list their words by meaning, and "on" is both a preposition
// and a state), so the ids are the order of first appearance.
func NewVocab(groups ...[]string) *tasks.Vocab {
	seen := map[string]bool{"<pad>": true, "<bos>": true, "<eot>": true}
	var words []string
	add := func(ws []string) {
		for _, w := range ws {
			if w == "" || strings.ContainsAny(w, " \t\n") {
				panic(fmt.Sprintf("textworld: vocabulary word %q is not one word", w))
			}
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	add(CoreWords())
	for _, g := range groups {
		add(g)
	}
	return tasks.NewVocab(words)
}

// Words splits text on spaces: the environments write their text as
// space-separated words, punctuation included as its own word.
func Words(text string) []string { return strings.Fields(text) }

// Encode maps text (space-separated words) to tokens; a word outside v is a
// programmer bug and panics (tasks.Vocab.ID).
func Encode(v *tasks.Vocab, text string) []tasks.Token {
	return v.Encode(Words(text)...)
}

// ReadWords maps generated tokens back to words; ok is false if any id is
// outside v or is a structure token (<pad>, <bos>, <eot>), which no action
// contains.
func ReadWords(v *tasks.Vocab, toks []tasks.Token) (words []string, ok bool) {
	words = make([]string, len(toks))
	for i, t := range toks {
		if t <= tasks.EOT || int(t) >= v.Size() {
			return nil, false
		}
		words[i] = v.Word(t)
	}
	return words, true
}

// ReadAction reads generated tokens as words (ReadWords) and parses them
// with parse; ok is false if either fails.
func ReadAction[A any](v *tasks.Vocab, toks []tasks.Token, parse func([]string) (A, error)) (a A, ok bool) {
	words, ok := ReadWords(v, toks)
	if !ok {
		return a, false
	}
	a, err := parse(words)
	return a, err == nil
}

// EncodeActions maps actions to tokens, each by its words.
func EncodeActions[A interface{ Words() []string }](v *tasks.Vocab, actions []A) [][]tasks.Token {
	out := make([][]tasks.Token, len(actions))
	for i, a := range actions {
		out[i] = v.Encode(a.Words()...)
	}
	return out
}

// Equal reports whether two token sequences are the same action.
func Equal(a, b []tasks.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Contains reports whether set holds a.
func Contains(set [][]tasks.Token, a []tasks.Token) bool {
	for _, s := range set {
		if Equal(s, a) {
			return true
		}
	}
	return false
}
