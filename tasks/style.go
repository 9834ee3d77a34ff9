package tasks

import "fmt"

// The styles a prompt may carry (doc.go, "Styles and the locked
// demonstrator").
const (
	Careful = "careful"
	Hasty   = "hasty"
)

// StyleWords are the style tokens. A task whose config names a style adds
// them, both, as the last word group of its vocabulary (StyleGroups), so
// the two styles share one vocabulary and the task's other ids are those
// of its plain layout.
var StyleWords = []string{"<careful>", "<hasty>"}

// CheckStyle validates a task config's Style field: "", "careful" or
// "hasty".
func CheckStyle(style string) error {
	if style != "" && style != Careful && style != Hasty {
		return fmt.Errorf(`Style must be "", "careful" or "hasty", got %q`, style)
	}
	return nil
}

// StyleGroups is a task's vocabulary word groups with StyleWords appended
// when style is set.
func StyleGroups(style string, groups ...[]string) [][]string {
	if style == "" {
		return groups
	}
	return append(groups, StyleWords)
}

// StyleToken is style's token in v, or 0 without a style. v must have been
// built with StyleGroups(style, …).
func StyleToken(v *Vocab, style string) Token {
	if style == "" {
		return 0
	}
	return v.ID("<" + style + ">")
}

// StyleLen is the number of tokens the style adds to a prompt: 1 with a
// style, 0 without.
func StyleLen(style string) int {
	if style == "" {
		return 0
	}
	return 1
}

// AppendStart appends the start of every prompt to dst: BOS, then the
// style token unless it is 0.
func AppendStart(dst []Token, style Token) []Token {
	dst = append(dst, BOS)
	if style != 0 {
		dst = append(dst, style)
	}
	return dst
}
