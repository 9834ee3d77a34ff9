package tasks

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextFormat is what a task adds to make its episodes readable and playable
// as text by a language model: the rules, and how its tokens read. The
// rendering and the parser themselves are generic (TextFace), so a new
// token of a task renders as its vocabulary word without new code.
type TextFormat struct {
	// System states the task's rules and the format of each kind of move.
	// TextFace.System appends the answer-extraction rules shared by all tasks.
	System string
	// Phrases maps a vocabulary word to the text it renders as; a word not
	// in the map renders as itself, "" drops it. A phrase starting with a
	// newline starts a new line.
	Phrases map[string]string
	// Aliases maps a lower-case word a model may write to the vocabulary
	// word it stands for (e.g. "|" for MediQ's <cf>).
	Aliases map[string]string
}

// TextTask is a task with a text face.
type TextTask interface {
	Task
	TextFormat() TextFormat
}

// AnswerRules is the part of every system prompt that says where the move
// is read from; TextFace.Parse implements exactly this.
const AnswerRules = `How your reply is read: you may think first, then put your move inside <answer>...</answer>; if there are several, the last one counts, and an unclosed <answer> runs to the end. Without the tags, the last line with a word on it is your move. A leading label such as "Move:" is ignored, and so are the marks * and #. Words are separated by spaces or commas, case does not matter, and a trailing full stop is ignored. A move with a word that is not one of the task's words, or with more words than the turn allows, is malformed: the turn is used up, it is critiqued -1, and the reply says it was invalid.`

// TextFace renders a task's token streams as text and parses free-form
// model output back into the tokens of one turn.
type TextFace struct {
	vocab  *Vocab
	format TextFormat
	// lookup maps a word as written (exact, then ASCII lower case, then
	// alias) to its token. Structure tokens are never in it.
	exact, folded map[string]Token
}

// NewTextFace builds the face of vocab with format. An alias naming a word
// outside the vocabulary is a programmer bug and panics.
func NewTextFace(v *Vocab, format TextFormat) *TextFace {
	f := &TextFace{vocab: v, format: format, exact: map[string]Token{}, folded: map[string]Token{}}
	ambiguous := map[string]bool{}
	for id, w := range v.words {
		if id < len(structureWords) {
			continue
		}
		f.exact[w] = Token(id)
		low := asciiLower(w)
		if _, dup := f.folded[low]; dup {
			ambiguous[low] = true
		}
		f.folded[low] = Token(id)
	}
	for low := range ambiguous {
		delete(f.folded, low) // two words differ only in case: exact spelling only
	}
	for alias, w := range format.Aliases {
		f.folded[asciiLower(alias)] = v.ID(w)
	}
	return f
}

// TextFaceOf is the face of a task, or an error if it has none.
func TextFaceOf(t Task) (*TextFace, error) {
	tt, ok := t.(TextTask)
	if !ok {
		return nil, fmt.Errorf("task %s has no text format", t.Name())
	}
	return NewTextFace(t.Vocab(), tt.TextFormat()), nil
}

// System is the system prompt: the task's rules, then AnswerRules.
func (f *TextFace) System() string {
	return strings.TrimSpace(f.format.System) + "\n\n" + AnswerRules
}

// Render writes tokens (a prompt or an observation) as text: each token as
// its phrase, separated by spaces, with the line breaks the phrases ask
// for. Ids outside the vocabulary render as Vocab.Word does.
func (f *TextFace) Render(toks []Token) string {
	var b strings.Builder
	for _, t := range toks {
		w := f.vocab.Word(t)
		p, ok := f.format.Phrases[w]
		if !ok {
			p = w
		}
		if p == "" {
			continue
		}
		if b.Len() > 0 && !strings.HasPrefix(p, "\n") && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return strings.TrimSpace(b.String())
}

// Format is the canonical text of an action: its words, space-separated.
// Parse(turn, Format(a)) gives back a for every action of vocabulary words
// other than the structure tokens and the word "<answer>" (the tag), within
// the turn's length.
func (f *TextFace) Format(action []Token) string { return f.vocab.Decode(action) }

// Parsed is the result of reading one turn's text.
type Parsed struct {
	// Tokens are the action passed to Episode.Step: the words' tokens, or
	// the single token Pad when the text is malformed, which every task
	// judges a malformed step (TestPadIsMalformed).
	Tokens []Token
	// Span is the part of the text read as the move.
	Span string
	// Malformed says the text itself did not read as words of the task, and
	// Reason says why; a text that reads but is not a valid move is not
	// malformed here: the episode judges it like the same tokens.
	Malformed bool
	Reason    string
}

// Parse reads the move of one turn from free-form text, as AnswerRules says.
func (f *TextFace) Parse(turn Turn, text string) Parsed {
	span := answerSpan(text)
	words := splitWords(stripLabel(strings.TrimSpace(markdown.Replace(span))))
	limit := turn.MaxTokens - 1
	if len(words) > limit {
		return malformed(span, fmt.Sprintf("%d words, the turn allows at most %d", len(words), max(limit, 0)))
	}
	toks := make([]Token, 0, len(words))
	for _, w := range words {
		t, ok := f.exact[w]
		if !ok {
			t, ok = f.folded[asciiLower(w)]
		}
		if !ok {
			return malformed(span, fmt.Sprintf("unknown word %q", clip(w, 40)))
		}
		toks = append(toks, t)
	}
	return Parsed{Tokens: toks, Span: span}
}

// MoveSpan is the part of a reply that AnswerRules reads as the move, for
// readers with their own word rules (the text environments of package
// textworld): the content of the last <answer> block, else the last line
// on which split finds a word, with the marks * and # and a leading label
// removed.
func MoveSpan(text string, split func(string) []string) string {
	return stripLabel(strings.TrimSpace(markdown.Replace(answerSpanWith(text, split))))
}

func malformed(span, reason string) Parsed {
	return Parsed{Tokens: []Token{Pad}, Span: span, Malformed: true, Reason: reason}
}

// answerSpan is the content of the last <answer> block (to the next
// </answer> or the end), else the last line with a word on it (a closing
// code fence or a line of marks is skipped).
func answerSpan(text string) string { return answerSpanWith(text, splitWords) }

// answerSpanWith is answerSpan with split deciding what a word is.
func answerSpanWith(text string, split func(string) []string) string {
	low := asciiLower(text)
	if i := strings.LastIndex(low, "<answer>"); i >= 0 {
		rest := text[i+len("<answer>"):]
		if j := strings.Index(asciiLower(rest), "</answer>"); j >= 0 {
			rest = rest[:j]
		}
		return strings.TrimSpace(rest)
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); len(split(markdown.Replace(l))) > 0 {
			return l
		}
	}
	return ""
}

// markdown removes the emphasis and heading marks models put around a
// move ("**q3**", "### Move: q3"); no task word contains them
// (TestSystemPrompts in package all checks).
var markdown = strings.NewReplacer("*", "", "#", "")

// stripLabel drops a leading "Label:" made of letters and spaces only (at
// most 32 bytes), so "Final answer: q3" reads as "q3".
func stripLabel(s string) string {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i > 32 {
		return s
	}
	for _, r := range s[:i] {
		if !(r == ' ' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return s
		}
	}
	return s[i+1:]
}

// splitWords splits on white space, commas, semicolons, brackets and
// quotes, and drops a trailing full stop (or ! ? :) from each word.
func splitWords(s string) []string {
	fields := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;()[]{}\"'`", r)
	})
	out := fields[:0]
	for _, w := range fields {
		if w = strings.TrimRight(w, ".!?:"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// asciiLower lower-cases ASCII letters only, so byte offsets are kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
