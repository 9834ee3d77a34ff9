package textworld

import "sync"

// Keys keeps an environment's splits apart. A key is the environment's
// fingerprint of a game; a draw is fresh (Fresh) when no other split
// holds its game: a Train draw always is; a draw of a held-out split (Test,
// TestOOD, Val) is not when it equals a training game, and a Val draw also
// not when it equals a Test game, so choosing on Val never reads a Test
// game. The environment draws again until a draw is fresh. The training
// keys are added as the world is made (AddTrain); the Test keys are made on
// the first Val draw, since most worlds never draw Val. Fresh is safe for
// concurrent use once the training keys are in.
type Keys struct {
	train map[string]bool
	once  sync.Once
	test  map[string]bool
	err   error
}

// AddTrain records a training game's key.
func (k *Keys) AddTrain(key string) {
	if k.train == nil {
		k.train = map[string]bool{}
	}
	k.train[key] = true
}

// Fresh reports whether a draw of split with this key may be kept; for a
// Val draw it makes the Test keys first if need be, from the n Test games
// (keyOf(Test, i) is Test game i's key).
func (k *Keys) Fresh(split Split, key string, n int, keyOf func(Split, int) (string, error)) (bool, error) {
	if split == Train {
		return true, nil
	}
	if k.train[key] {
		return false, nil
	}
	if split != Val {
		return true, nil
	}
	k.once.Do(func() {
		k.test = make(map[string]bool, n)
		for i := range n {
			key, err := keyOf(Test, i)
			if err != nil {
				k.err = err
				return
			}
			k.test[key] = true
		}
	})
	return !k.test[key], k.err
}
