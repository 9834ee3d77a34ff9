package act

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

// fixture is alfworld's first training game: its expert pairs and one
// critic example per state whose alternative is the first other listed
// action (admissible) or a command that does not apply.
type fixture struct {
	env    *Env
	pairs  []textworld.Pair
	critic []CriticExample
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	pairs, err := env.ExpertPairs(textworld.Train, 0, 1, textworld.History)
	require.NoError(t, err)
	require.NotEmpty(t, pairs)
	f := fixture{env: env, pairs: pairs}
	junk := textworld.Encode(env.Vocab, "take apple 9 from fridge 1")
	for i, p := range pairs {
		alt := junk
		for _, a := range p.State.Admissible {
			if i%2 == 0 && !textworld.Equal(a, p.Expert) {
				alt = a
				break
			}
		}
		f.critic = append(f.critic, CriticExample{State: p.State, Expert: p.Expert, Alt: alt, ExpertFirst: i%3 == 0,
			AltAdmissible: env.Admits(p.State, alt), ExpertObs: textworld.Encode(env.Vocab, "you arrive at the fridge 1 ."),
			AltObs: env.Vocab.Encode(textworld.NothingHappens...)})
	}
	return f
}

func words(v *tasks.Vocab, s string) []tasks.Token { return textworld.Encode(v, s) }

// envOr is the environment variable key, or def when it is unset or empty:
// the knobs of the measurement runners.
func envOr(key, def string) string {
	if s := os.Getenv(key); s != "" {
		return s
	}
	return def
}
