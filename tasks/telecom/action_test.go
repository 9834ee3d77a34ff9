package telecom

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// toks encodes space-separated words; "#N" is the raw id N (for ids outside
// the vocabulary).
func toks(t testing.TB, s string) []tasks.Token {
	var out []tasks.Token
	for _, w := range strings.Fields(s) {
		if w[0] == '#' {
			n, err := strconv.Atoi(w[1:])
			require.NoError(t, err, w)
			out = append(out, tasks.Token(n))
			continue
		}
		id, ok := vocabulary.Lookup(w)
		require.True(t, ok, "word %q", w)
		out = append(out, id)
	}
	return out
}

func TestParseAction(t *testing.T) {
	cases := []struct {
		in     string
		s      setting
		ok     bool
		parsed action
	}{
		{"usage L2", solo, true, action{op: opUsage, line: 2}},
		{"newsim L7", dual, true, action{op: opNewsim, line: 7}},
		{"bar", solo, true, action{op: opBar, line: -1}},
		{"airplane", dual, true, action{op: opAirplane, line: -1}}, // parses; it fails as a tool in dual
		{"say reseat", dual, true, action{op: opReseat, line: -1, say: true}},
		{"done", solo, true, action{op: opDone, line: -1}},
		{"transfer", dual, true, action{op: opTransfer, line: -1}},
		{"", solo, false, action{}},
		{"usage", solo, false, action{}},            // missing line
		{"usage bar", solo, false, action{}},        // not a line id
		{"bar L1", solo, false, action{}},           // device tools take no argument
		{"done L1", solo, false, action{}},          // nor do closes
		{"say airplane", solo, false, action{}},     // nobody to talk to in solo
		{"say usage", dual, false, action{}},        // the user cannot use account tools
		{"say L1", dual, false, action{}},           // not an action
		{"say", dual, false, action{}},              // says nothing
		{"L1", solo, false, action{}},               // not a tool
		{"ok", solo, false, action{}},               // a reply word
		{"usage L1 L1", solo, false, action{}},      // too long
		{"say say airplane", dual, false, action{}}, // too long
		{"#999", solo, false, action{}},             // outside the vocabulary
		{"#-1 usage", solo, false, action{}},        // negative id
		{"usage #999", solo, false, action{}},       // argument outside the vocabulary
		{"say #999", dual, false, action{}},         // message outside the vocabulary
		{"<pad> <eot>", solo, false, action{}},      // structure tokens
		{"<bos>", solo, false, action{}},            // structure token
		{"act", dual, false, action{}},              // a header
		{"no-data", dual, false, action{}},          // a symptom
		{"usage L1 <eot>", solo, false, action{}},   // EOT is not part of the action
		{"say restart", dual, true, action{op: opRestart, line: -1, say: true}},
	}
	for _, tc := range cases {
		a, err := parseAction(toks(t, tc.in), tc.s)
		if !tc.ok {
			assert.Error(t, err, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.parsed, a, "%q", tc.in)
		assert.Equal(t, tc.in, a.String(), "round trip")
	}
}

func TestActionKeysAreDistinct(t *testing.T) {
	seen := map[int]action{}
	for o := op(0); o < numOps; o++ {
		var as []action
		switch {
		case o.account():
			for l := 0; l < maxLines; l++ {
				as = append(as, action{op: o, line: l})
			}
		case o.device():
			as = append(as, action{op: o, line: -1}, action{op: o, line: -1, say: true})
		default:
			as = append(as, action{op: o, line: -1})
		}
		for _, a := range as {
			prev, dup := seen[a.key()]
			assert.False(t, dup, "%v and %v share a key", a, prev)
			seen[a.key()] = a
		}
	}
}

// bytesToTokens reads little-endian int16 token ids, so the fuzzer reaches
// ids outside the vocabulary on both sides.
func bytesToTokens(b []byte) []tasks.Token {
	out := make([]tasks.Token, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		out = append(out, tasks.Token(int16(binary.LittleEndian.Uint16(b[i:]))))
	}
	return out
}

func tokensToBytes(ts []tasks.Token) []byte {
	b := make([]byte, 2*len(ts))
	for i, t := range ts {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(t)))
	}
	return b
}

// FuzzParseAction: any token sequence parses or errors, never panics, and a
// parsed action renders back to exactly its tokens.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"usage L2", "say airplane", "done", "bar L1", "#999", "say #-1", ""} {
		f.Add(tokensToBytes(toks(f, s)), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, dualSetting bool) {
		in := bytesToTokens(b)
		s := solo
		if dualSetting {
			s = dual
		}
		a, err := parseAction(in, s)
		if err != nil {
			return
		}
		if !slices.Equal(in, a.tokens()) {
			t.Fatalf("%v parsed as %v, which renders as %v", in, a, a.tokens())
		}
	})
}
