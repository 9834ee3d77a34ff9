package act

import (
	"math"
	"slices"

	"arew/tasks"
)

// A decoder that can only write valid actions.
//
// The policy writes an action token by token, and a small model gets many
// of them wrong: "put soapbar 1" cut short, "go to" the place it stands
// at, a verb no command starts with (docs/act.md §11). At every state the
// environment lists the commands that apply, so the decoder can be kept
// on them. Put the listed commands, each followed by <eot>, into a prefix
// tree (a trie): the root's children are the first tokens of the
// commands, a node's children the tokens that follow its path in some
// command. For the state
//
//	go to fridge 1 · go to shelf 2 · open fridge 1
//
// the tree is
//
//	(root) ─ go ─ to ─┬─ fridge ─ 1 ─ <eot>
//	       │          └─ shelf ─ 2 ─ <eot>
//	       └─ open ─ fridge ─ 1 ─ <eot>
//
// After the tokens written so far, the decoder walks down the tree and may
// write only a child of the node it reached. At every step it sets the
// logits of all other tokens to (almost) −∞ and takes the softmax of what
// is left: the policy's own distribution, renormalised over the allowed
// tokens,
//
//	q(j) = exp(z_j) / Σ_{k allowed} exp(z_k)   for j allowed, 0 otherwise.
//
// Greedy decoding picks the best allowed token; sampling draws from q.
// Where a node has a single child the token is forced (q = 1): once
// "open" is written, "fridge 1 <eot>" follows whatever the model prefers.
// Every path ends with <eot> at a leaf, so whatever the logits, the
// decoder writes one of the listed commands
// (TestTrieDecoderWritesOnlyAdmissibleCommands). The same loop runs with a looser mask,
// textworld.TokenGrammar: every command of the grammar, applicable or not
// (Decoding).

// Trie is a prefix tree over commands (token sequences), each ended by
// EOT. Node 0 is the root. It is read only once built: safe for
// concurrent use.
type Trie struct {
	nodes []trieNode
}

// trieNode is one node: the tokens that may follow its path, in id order,
// and the node each leads to.
type trieNode struct {
	next  []tasks.Token
	child []int
}

// NewTrie builds the tree of commands (duplicates are merged; an empty
// command is skipped: a command has at least one token before EOT).
func NewTrie(commands [][]tasks.Token) *Trie {
	t := &Trie{nodes: []trieNode{{}}}
	for _, c := range commands {
		if len(c) == 0 {
			continue
		}
		at := 0
		for _, tok := range append(slices.Clip(c), tasks.EOT) {
			at = t.step(at, tok, true)
		}
	}
	return t
}

// step follows tok from node at; with grow it adds the child when missing,
// without it a missing child gives −1.
func (t *Trie) step(at int, tok tasks.Token, grow bool) int {
	n := &t.nodes[at]
	i, found := slices.BinarySearch(n.next, tok)
	if found {
		return n.child[i]
	}
	if !grow {
		return -1
	}
	n.next = slices.Insert(n.next, i, tok)
	n.child = slices.Insert(n.child, i, len(t.nodes))
	t.nodes = append(t.nodes, trieNode{})
	return len(t.nodes) - 1
}

// Next lists, in id order, the tokens that may follow prefix (EOT where a
// command ends there); nil when prefix leaves the tree, and for a tree of
// no command. The list belongs to the tree: do not change it.
func (t *Trie) Next(prefix []tasks.Token) []tasks.Token {
	at := 0
	for _, tok := range prefix {
		if at = t.step(at, tok, false); at < 0 {
			return nil
		}
	}
	return t.nodes[at].next
}

// MaskedLogSoftmax is the log-probabilities of the renormalised
// distribution q above: log q(j) = z_j − log Σ_{k allowed} exp(z_k) for
// an allowed j, −Inf for the others. (The decoder gets the same numbers
// from model.Sampler on the logits masked by rl.MaskLogits; this is the
// formula written out, for the tests and the reader.)
func MaskedLogSoftmax(logits []float32, allowed []tasks.Token) []float64 {
	out := make([]float64, len(logits))
	mx := math.Inf(-1)
	for _, a := range allowed {
		mx = math.Max(mx, float64(logits[a]))
	}
	sum := 0.0
	for _, a := range allowed {
		sum += math.Exp(float64(logits[a]) - mx)
	}
	lse := mx + math.Log(sum)
	for j := range out {
		out[j] = math.Inf(-1)
	}
	for _, a := range allowed {
		out[a] = float64(logits[a]) - lse
	}
	return out
}
