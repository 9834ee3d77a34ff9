package textworld

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeysKeepTheSplitsApart: a Train draw is always fresh; a held-out
// draw is not when it is a training game; a Val draw also not when it is a
// Test game. The Test keys are made once, on the first Val draw, for any
// number of concurrent callers, and a failure to make a Test game is
// every Val draw's error.
func TestKeysKeepTheSplitsApart(t *testing.T) {
	var k Keys
	k.AddTrain("t0")
	calls := 0
	testKey := func(s Split, i int) (string, error) {
		assert.Equal(t, Test, s, "only Test games are keyed")
		calls++
		return fmt.Sprint("x", i), nil
	}
	for _, c := range []struct {
		split Split
		key   string
		fresh bool
	}{{Train, "t0", true}, {Test, "t0", false}, {TestOOD, "t0", false}, {Val, "t0", false},
		{Test, "x1", true}, {TestOOD, "x1", true}, {Test, "new", true}} {
		got, err := k.Fresh(c.split, c.key, 3, testKey)
		require.NoError(t, err)
		assert.Equal(t, c.fresh, got, "%v %s", c.split, c.key)
	}
	assert.Zero(t, calls, "no Val draw yet: no Test game made")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			fresh, err := k.Fresh(Val, "x1", 3, testKey)
			assert.NoError(t, err)
			assert.False(t, fresh, "a Test game")
		})
	}
	wg.Wait()
	assert.Equal(t, 3, calls, "the Test keys made once")
	fresh, err := k.Fresh(Val, "x3", 3, testKey)
	require.NoError(t, err)
	assert.True(t, fresh)

	var bad Keys
	_, err = bad.Fresh(Val, "y", 3, func(Split, int) (string, error) { return "", errors.New("no game") })
	assert.ErrorContains(t, err, "no game")
	_, err = bad.Fresh(Val, "y", 3, testKey)
	assert.ErrorContains(t, err, "no game", "the error stays")
}
