package pe

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// In the tiny vocabulary: numbers 0..4 are ids 3..7, a0..a2 are 8..10,
// m0..m5 are 11..16.

// tokensOf reads bytes as tokens: each byte is a token id, except that 0xFF
// starts a 4-byte little-endian int32 (any id, negative and huge ones
// included).
func tokensOf(data []byte) []tasks.Token {
	var out []tasks.Token
	for i := 0; i < len(data); i++ {
		if data[i] == 0xFF && i+4 < len(data) {
			out = append(out, tasks.Token(int32(binary.LittleEndian.Uint32(data[i+1:i+5]))))
			i += 4
			continue
		}
		out = append(out, tasks.Token(data[i]))
	}
	return out
}

func fuzzTasks(t testing.TB) []*Task {
	fc := tinyConfig()
	fc.Focus = 0
	echo := tinyConfig()
	echo.Echo = true
	both := fc
	both.Echo, both.Pairs = true, true
	repeat := both
	repeat.RepeatEcho = true
	return []*Task{newTask(t, tinyConfig()), newTask(t, fc), newTask(t, echo), newTask(t, both), newTask(t, repeat)}
}

// FuzzParseQuery: any token sequence parses into a query that round-trips
// through EncodeQuery, or is an error — never a panic.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {8, 9, 11, 12}, {9, 8, 16, 11}, {11, 12}, {8, 8, 11, 12}, {8, 9, 12, 12},
		{0xFF, 0, 0, 0, 0x80, 1, 2, 3}, {1, 2, 0, 200, 255, 255},
	} {
		f.Add(seed)
	}
	tks := fuzzTasks(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, task := range tks {
			q, err := task.parseQuery(tokensOf(data))
			if err != nil {
				continue
			}
			again, err := task.parseQuery(task.EncodeQuery(q))
			require.NoError(t, err)
			require.Equal(t, q, again)
			require.NotEqual(t, q.A, q.B)
		}
	})
}

// FuzzParseGuess: any token sequence is a valid non-zero guess in range, or
// an error.
func FuzzParseGuess(f *testing.F) {
	for _, seed := range [][]byte{{}, {3, 4, 5}, {3, 3, 3}, {7, 7, 7}, {3, 4}, {0xFF, 255, 255, 255, 255, 4, 4}} {
		f.Add(seed)
	}
	tks := fuzzTasks(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, task := range tks {
			g, err := task.parseGuess(tokensOf(data))
			if err != nil {
				continue
			}
			require.Len(t, g, task.cfg.Dims)
			nz := false
			for _, x := range g {
				require.True(t, x >= 0 && x < task.cfg.GuessLevels)
				nz = nz || x > 0
			}
			require.True(t, nz)
		}
	})
}

// FuzzEpisode plays arbitrary bytes as the agent's turns (0xFE ends a turn)
// through taskstest.CheckEpisode (the tasks contract: no panic, critiques in
// range, vocabulary, turn limit, MaxTokens); every episode also plays all
// its turns and has finite measures.
func FuzzEpisode(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {0xFE, 0xFE, 0xFE},
		{8, 9, 11, 12, 0xFE, 3, 4, 5, 0xFE, 8, 9, 11, 12, 0xFE, 3, 4, 5},
		{11, 12, 0xFE, 7, 7, 7, 7, 0xFE, 12, 11, 0xFE, 0, 0, 0},
		{0xFF, 1, 0, 0, 0, 0xFE, 0xFF, 0, 0, 0, 0x80, 200},
	} {
		f.Add(seed)
	}
	tks := fuzzTasks(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var turns [][]tasks.Token
		for _, chunk := range bytes.Split(data, []byte{taskstest.TurnSeparator}) {
			turns = append(turns, tokensOf(chunk))
		}
		for _, task := range tks {
			ep, err := task.NewEpisode(tasks.Train, len(data))
			require.NoError(t, err)
			m := taskstest.CheckEpisode(t, task, ep, turns, task.TurnLimit())
			assert.Equal(t, task.TurnLimit(), m.Turns)
			for _, x := range []float64{m.BTProxy, m.CBT, m.Evidence} {
				assert.False(t, x != x, "NaN measure")
			}
		}
	})
}
