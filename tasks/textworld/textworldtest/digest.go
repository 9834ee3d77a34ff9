package textworldtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

// SplitsDigest is the sha256, in hex, of the keys of every instance of
// the given splits, in order (key(split, i) is an environment's fingerprint
// of instance i). An environment's test pins it, so that a new split or a
// change to a generator cannot move the games that committed studies ran
// on without the test saying so.
func SplitsDigest(t *testing.T, z textworld.Sizes, splits []textworld.Split, key func(textworld.Split, int) (string, error)) string {
	t.Helper()
	h := sha256.New()
	for _, s := range splits {
		for i := range z.Size(s) {
			k, err := key(s, i)
			require.NoError(t, err)
			fmt.Fprintf(h, "%v %d %s\n", s, i, k)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
