package textworld

import (
	"fmt"
	"strings"
	"unicode"

	"arew/tasks"
)

// MaxCommandWords bounds the words of a command read from text: the
// longest command of the three environments is a webshop search of
// webshop.MaxQuery = 8 words in brackets (11 words).
const MaxCommandWords = 24

// CommandRules is the part of every text environment's system prompt that
// says how a reply is read; ReadCommand implements exactly this.
var CommandRules = fmt.Sprintf(`How your reply is read: you may think first, then put your command inside <answer>...</answer>; if there are several, the last one counts, and an unclosed <answer> runs to the end. Without the tags, the last line with a word on it is your command. A leading label such as "Action:" is ignored, and so are the marks * and #. Words are separated by spaces, the brackets [ and ] are words of their own, case does not matter, and a trailing full stop is ignored. A command with a word the environment does not know, or with more than %d words, is not read: the step is used up and the reply is "nothing happens .".`, MaxCommandWords)

// Command is one reply read as a command.
type Command struct {
	// Tokens is what Env.Step is given: the words' tokens, or the single
	// token Pad when the text did not read, which every environment
	// answers "nothing happens ." (a step used up).
	Tokens []tasks.Token
	// Span is the part of the text read as the command.
	Span string
	// Malformed says the text did not read as words of the environment,
	// and Reason says why. A command that reads but does not apply is not
	// malformed: the environment answers it.
	Malformed bool
	Reason    string
}

// ReadCommand reads a command from a model's free-form reply, as
// CommandRules says: the span of tasks.MoveSpan (the last line with a word
// is found with these word rules), split on white space,
// backticks and double quotes, with [ and ] split off as words, a trailing
// . ! or ? dropped, and each word looked up as written, then in lower case.
func ReadCommand(v *tasks.Vocab, text string) Command {
	span := tasks.MoveSpan(text, commandWords)
	words := commandWords(span)
	switch {
	case len(words) == 0:
		return unread(span, "no command")
	case len(words) > MaxCommandWords:
		return unread(span, fmt.Sprintf("%d words, a command has at most %d", len(words), MaxCommandWords))
	}
	toks := make([]tasks.Token, len(words))
	for i, w := range words {
		t, ok := v.Lookup(w)
		if !ok {
			t, ok = v.Lookup(strings.ToLower(w))
		}
		if !ok || t <= tasks.EOT {
			return unread(span, fmt.Sprintf("unknown word %q", clipWord(w)))
		}
		toks[i] = t
	}
	return Command{Tokens: toks, Span: span}
}

func unread(span, reason string) Command {
	return Command{Tokens: []tasks.Token{tasks.Pad}, Span: span, Malformed: true, Reason: reason}
}

// commandWords splits a span into words: white space, backticks and double
// quotes separate, [ and ] are words of their own, and the last word loses
// a trailing . ! or ? (and goes if nothing is left of it).
func commandWords(s string) []string {
	s = strings.NewReplacer("[", " [ ", "]", " ] ").Replace(s)
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '`' || r == '"' })
	if n := len(words); n > 0 {
		if w := strings.TrimRight(words[n-1], ".!?"); w == "" {
			words = words[:n-1]
		} else {
			words[n-1] = w
		}
	}
	return words
}

func clipWord(w string) string {
	if r := []rune(w); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return w
}
