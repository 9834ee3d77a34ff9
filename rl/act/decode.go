package act

import (
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// Decoding is how a policy writes an action (Config.Decoder; docs/act.md
// §11): under the trie of the commands listed at the state (trie.go),
// under the environment's command grammar, or free. Every row of a run
// acts under the same one, in evaluation, next-action accuracy, D_critic
// sampling and the RL stage's rollouts. The critic's answer has its own
// mask (ChoiceFormat.Constraint): the tree of its two candidates in the
// action channel, none for the slot.
type Decoding uint8

const (
	// DecodeTrie writes only commands listed at the state (the default).
	DecodeTrie Decoding = iota
	// DecodeGrammar writes only commands of the environment's grammar
	// (textworld.TokenGrammar), whether they apply or not.
	DecodeGrammar
	// DecodeFree writes whatever the model prefers, as a plain language
	// model does: the paper's setting, and the repeated-failure measure's.
	DecodeFree
)

var decodingNames = [...]string{DecodeTrie: "trie", DecodeGrammar: "grammar", DecodeFree: "free"}

func (d Decoding) String() string {
	if int(d) < len(decodingNames) {
		return decodingNames[d]
	}
	return fmt.Sprintf("Decoding(%d)", d)
}

// ParseDecoding reads a Config.Decoder: "trie" (also ""), "grammar" or
// "free"; anything else is an error.
func ParseDecoding(s string) (Decoding, error) {
	if s == "" {
		return DecodeTrie, nil
	}
	for d, name := range decodingNames {
		if s == name {
			return Decoding(d), nil
		}
	}
	return 0, fmt.Errorf("decoder must be %q, %q or %q, got %q", "trie", "grammar", "free", s)
}

// Constraint is what a constrained decoder may write at one state: Next
// lists the tokens that may follow prefix (the action's tokens so far),
// EOT among them where the action may end. An empty list means that
// nothing fits (a state that lists no command short enough); that token
// is then decoded free. The list must not be changed by the caller.
type Constraint interface {
	Next(prefix []tasks.Token) []tasks.Token
}

// grammarAt is the grammar as a Constraint on actions of at most maxWords
// tokens.
type grammarAt struct {
	g        *textworld.TokenGrammar
	maxWords int
}

func (c grammarAt) Next(prefix []tasks.Token) []tasks.Token { return c.g.Next(prefix, c.maxWords) }

// Constraint is decoding d's constraint at state s for actions of at most
// maxWords tokens (EOT excluded): a Trie over the listed commands that
// fit, the grammar, or nil (free). WebShop's free search is admissible on
// the search page but not listed, so the trie keeps to the listed
// searches.
func (e *Env) Constraint(d Decoding, s textworld.State, maxWords int) Constraint {
	switch d {
	case DecodeTrie:
		var fit [][]tasks.Token
		for _, a := range s.Admissible {
			if len(a) <= maxWords {
				fit = append(fit, a)
			}
		}
		return NewTrie(fit)
	case DecodeGrammar:
		return grammarAt{e.Grammar, maxWords}
	}
	return nil
}

// decode is the decoder's loop (Generator.Generate): from the logits after
// the prompt, it writes up to maxTokens tokens, each drawn by smp from the
// logits masked to c.Next(tokens so far) (rl.MaskLogits: the others moved
// down by rl.MaskBias, so the softmax is renormalised over the allowed
// tokens; c nil: unmasked), and stops at EOT, which it does not return.
// feed gives the logits after one more token. finished is false when the
// budget ran out before EOT.
func decode(logits []float32, feed func(tasks.Token) ([]float32, error), smp *model.Sampler, c Constraint,
	maxTokens int, rng *rand.Rand, scratch []float32) (out []tasks.Token, finished bool, err error) {
	for range maxTokens {
		row := logits
		if c != nil {
			if row, err = rl.MaskLogits(scratch, logits, c.Next(out)); err != nil {
				return nil, false, err
			}
		}
		s, err := smp.Sample(rng, row)
		if err != nil {
			return nil, false, err
		}
		if s.Token == tasks.EOT {
			return out, true, nil
		}
		out = append(out, s.Token)
		if len(out) == maxTokens {
			break
		}
		if logits, err = feed(s.Token); err != nil {
			return nil, false, err
		}
	}
	return out, false, nil
}
