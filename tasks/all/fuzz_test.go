package all

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// FuzzTextMoves plays arbitrary text, split into moves at ASCII record
// separators (0x1e), on an episode of every registered task through its
// text face: no error before the end, critiques in {−1, 0, +1}, a
// malformed text always a malformed step, every parsed token a word of the
// task, and the end within the turn limit.
func FuzzTextMoves(f *testing.F) {
	for _, s := range []string{"q1\x1e0 3 3 0 0 0", "<answer>fn3</answer>\x1e1 2 3 4 | 1 1 1 1", "a0 a1 m0 m1\x1e4 0 0 0 0 0",
		"line L0\x1esay bar\x1edone", "", "\x1e\x1e\x1e", "Move: <ANSWER>Q2."} {
		f.Add(s)
	}
	var faces []*tasks.TextFace
	var all []tasks.Task
	for _, name := range tasks.Names() {
		task, err := tasks.New(name, fastConfig(name))
		require.NoError(f, err)
		face, err := tasks.TextFaceOf(task)
		require.NoError(f, err)
		all, faces = append(all, task), append(faces, face)
	}
	f.Fuzz(func(t *testing.T, input string) {
		moves := strings.Split(input, "\x1e")
		for k, task := range all {
			ep, err := task.NewEpisode(tasks.Test, 0)
			require.NoError(t, err)
			te := tasks.NewTextEpisode(faces[k], ep)
			for turn := 0; !te.Done(); turn++ {
				require.Less(t, turn, 64, task.Name())
				move := ""
				if turn < len(moves) {
					move = moves[turn]
				}
				s, err := te.StepText(move)
				require.NoError(t, err)
				require.Contains(t, []int8{-1, 0, 1}, s.Step.Z)
				if s.Parsed.Malformed {
					require.True(t, s.Step.Malformed, "%s: %q", task.Name(), move)
					require.Equal(t, int8(-1), s.Step.Z)
				}
				for _, tok := range s.Parsed.Tokens {
					require.True(t, tok > tasks.EOT || (s.Parsed.Malformed && tok == tasks.Pad))
					require.Less(t, int(tok), task.Vocab().Size())
				}
			}
			_, err = te.StepText("")
			require.Error(t, err)
		}
	})
}
