package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// graphLogits runs the training graph's forward on a (B,T) batch and
// returns a copy of its logits (B·T, V).
func graphLogits(t *testing.T, m *Model, tokens []int32, batch, seqLen int) []float32 {
	logits, _ := graphOutputs(t, m, tokens, batch, seqLen)
	return logits
}

// graphOutputs returns copies of the graph's logits and values (nil for a
// missing head).
func graphOutputs(t *testing.T, m *Model, tokens []int32, batch, seqLen int) (logits, values []float32) {
	g, err := m.NewGraph(batch, seqLen)
	require.NoError(t, err)
	defer g.Close()
	var targets []int32
	if m.Config.LMHead {
		targets = make([]int32, len(tokens))
	}
	require.NoError(t, g.SetInputs(tokens, targets))
	require.NoError(t, g.Forward())
	if g.Logits != nil {
		logits = append(logits, Float32s(g.Logits)...)
	}
	if g.Values != nil {
		values = append(values, Float32s(g.Values)...)
	}
	return logits, values
}

// The KV-cache path and the graph agree on every position of three
// sequences decoded side by side at different positions: a mixed first
// call (prefills of 5, 1 and 9 tokens), then single steps of whichever
// sequences still have tokens, up to 48 cached steps.
func TestDecoderMatchesGraph(t *testing.T) {
	const B, T, V = 3, 48, 23
	cfg := tinyConfig(t, V, T, true, true) // a policy with a shared value head
	m := newRandomModel(t, cfg, 5, 0.3)
	rng := rand.New(rand.NewPCG(5, 1))
	tokens := randomTokens(rng, B*T, V)
	want, wantValues := graphOutputs(t, m, tokens, B, T)
	maxLogit := 0.0
	for _, z := range want {
		maxLogit = max(maxLogit, math.Abs(float64(z)))
	}
	t.Logf("max |logit| %.1f", maxLogit)

	d, err := m.NewDecoder(5)
	require.NoError(t, err)
	slot := []int{4, 0, 2} // sequence b lives in slot[b]
	seq := func(b int) []int32 { return tokens[b*T : (b+1)*T] }
	check := func(b, pos int, got []float32) {
		t.Helper()
		row := want[(b*T+pos)*V : (b*T+pos+1)*V]
		assert.Less(t, maxAbsDiff(row, got), 1e-4, "sequence %d position %d", b, pos)
	}
	checkValue := func(b, pos int, got float32) {
		t.Helper()
		assert.InDelta(t, wantValues[b*T+pos], got, 1e-4, "value: sequence %d position %d", b, pos)
	}
	prefill := []int{5, 1, 9}
	chunks := [][]int32{seq(0)[:5], seq(1)[:1], seq(2)[:9]}
	logits, err := d.Append(slot, chunks)
	require.NoError(t, err)
	for b := range B {
		check(b, prefill[b]-1, logits[b*V:(b+1)*V])
		checkValue(b, prefill[b]-1, d.Values()[b])
		assert.Equal(t, prefill[b], d.Pos(slot[b]))
	}
	worst := 0.0
	for step := 0; ; step++ {
		var slots []int
		var toks []int32
		var seqs []int
		for b := range B {
			// Sequence 1 pauses on odd steps: slots advance independently.
			if p := d.Pos(slot[b]); p < T && (b != 1 || step%2 == 0 || d.Pos(slot[0]) == T) {
				slots, toks, seqs = append(slots, slot[b]), append(toks, seq(b)[p]), append(seqs, b)
			}
		}
		if len(slots) == 0 {
			break
		}
		logits, err := d.Step(slots, toks)
		require.NoError(t, err)
		for i, b := range seqs {
			pos := d.Pos(slot[b]) - 1
			check(b, pos, logits[i*V:(i+1)*V])
			checkValue(b, pos, d.Values()[i])
			worst = max(worst, maxAbsDiff(want[(b*T+pos)*V:(b*T+pos+1)*V], logits[i*V:(i+1)*V]))
		}
	}
	t.Logf("max |KV-cache − graph| over all positions: %.2e", worst)
	for b := range B {
		assert.Equal(t, T, d.Pos(slot[b]))
	}
}

// Bad calls return errors and change nothing: the next good call still
// matches the graph.
func TestDecoderRejectsBadCalls(t *testing.T) {
	const T, V = 8, 11
	m := newRandomModel(t, tinyConfig(t, V, T, true, false), 6, 0.3)
	tokens := randomTokens(rand.New(rand.NewPCG(6, 1)), T, V)
	want := graphLogits(t, m, tokens, 1, T)
	d, err := m.NewDecoder(2)
	require.NoError(t, err)
	_, err = d.Prefill(0, tokens[:6])
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		seqs   []int
		tokens [][]int32
		errMsg string
	}{
		{"past context", []int{0}, [][]int32{{1, 2, 3}}, "would pass the context of 8"},
		{"bad slot", []int{2}, [][]int32{{1}}, "slot 2 outside"},
		{"duplicate", []int{1, 1}, [][]int32{{1}, {2}}, "twice"},
		{"bad token", []int{1, 0}, [][]int32{{1}, {11}}, "token 11 at index 0"},
		{"negative token", []int{0}, [][]int32{{-1}}, "outside [0, 11)"},
		{"empty", []int{0}, [][]int32{{}}, "no tokens"},
		{"lengths", []int{0, 1}, [][]int32{{1}}, "2 slots and 1"},
	} {
		_, err := d.Append(tc.seqs, tc.tokens)
		assert.ErrorContains(t, err, tc.errMsg, tc.name)
	}
	assert.Equal(t, 6, d.Pos(0))
	assert.Equal(t, 0, d.Pos(1))
	logits, err := d.Step([]int{0}, tokens[6:7])
	require.NoError(t, err)
	assert.Less(t, maxAbsDiff(want[6*V:7*V], logits), 1e-4)

	// Reset starts over in the same slot.
	require.NoError(t, d.Reset(0))
	logits, err = d.Prefill(0, tokens[:3])
	require.NoError(t, err)
	assert.Less(t, maxAbsDiff(want[2*V:3*V], logits), 1e-4)

}

// A separate critic decodes too: no logits, values equal to its graph's.
func TestDecoderCriticValues(t *testing.T) {
	const T, V = 10, 11
	critic := newRandomModel(t, tinyConfig(t, V, T, false, true), 7, 0.3)
	tokens := randomTokens(rand.New(rand.NewPCG(7, 1)), T, V)
	logits, want := graphOutputs(t, critic, tokens, 1, T)
	require.Nil(t, logits)
	d, err := critic.NewDecoder(1)
	require.NoError(t, err)
	got, err := d.Prefill(0, tokens[:4])
	require.NoError(t, err)
	assert.Nil(t, got)
	assert.InDelta(t, want[3], d.Values()[0], 1e-4)
	for p := 4; p < T; p++ {
		_, err := d.Step([]int{0}, tokens[p:p+1])
		require.NoError(t, err)
		assert.InDelta(t, want[p], d.Values()[0], 1e-4, "position %d", p)
	}
	policy := newRandomModel(t, tinyConfig(t, V, T, true, false), 7, 0.3)
	pd, err := policy.NewDecoder(1)
	require.NoError(t, err)
	assert.Nil(t, pd.Values())
}

// The last block on each slot's last row only (Decoder.lastRows) gives
// bitwise the logits and values of the same block over every row: the
// small preset (the rollout's), 16 slots, calls of random subsets of slots
// with chunks of 1 to 40 tokens (prefills, observations, single steps, a
// lone row), until every slot's context is full.
func TestDecoderLastRowsBitwise(t *testing.T) {
	const T, V, slots = 160, 29, 16
	cfg, err := NewConfig("small", V, T)
	require.NoError(t, err)
	cfg.LMHead, cfg.ValueHead = true, true
	m := newRandomModel(t, cfg, 8, 0.3)
	fast, err := m.NewDecoder(slots)
	require.NoError(t, err)
	ref, err := m.NewDecoder(slots)
	require.NoError(t, err)
	ref.allRows = true
	rng := rand.New(rand.NewPCG(8, 1))
	calls, rows := 0, 0
	for {
		var seqs []int
		var chunks [][]int32
		for s := range slots {
			room := T - fast.Pos(s)
			if room == 0 || rng.IntN(3) == 0 {
				continue
			}
			n := 1
			if rng.IntN(4) == 0 {
				n = 1 + rng.IntN(40)
			}
			seqs, chunks = append(seqs, s), append(chunks, randomTokens(rng, min(n, room), V))
		}
		if len(seqs) == 0 {
			full := true
			for s := range slots {
				full = full && fast.Pos(s) == T
			}
			if full {
				break
			}
			continue
		}
		got, err := fast.Append(seqs, chunks)
		require.NoError(t, err)
		gotValues := slices.Clone(fast.Values())
		want, err := ref.Append(seqs, chunks)
		require.NoError(t, err)
		require.Equal(t, bitsOf(want), bitsOf(got), "call %d: logits", calls)
		require.Equal(t, bitsOf(ref.Values()), bitsOf(gotValues), "call %d: values", calls)
		calls++
		for _, c := range chunks {
			rows += len(c)
		}
	}
	t.Logf("%d calls, %d rows, %d slots each", calls, rows, slots)
}

// bitsOf is x's float32 bit patterns.
func bitsOf(x []float32) []uint32 {
	out := make([]uint32, len(x))
	for i, v := range x {
		out[i] = math.Float32bits(v)
	}
	return out
}

func logSoftmax(z []float32, temp float64) []float64 {
	mx := math.Inf(-1)
	for _, x := range z {
		mx = math.Max(mx, float64(x)/temp)
	}
	sum := 0.0
	for _, x := range z {
		sum += math.Exp(float64(x)/temp - mx)
	}
	out := make([]float64, len(z))
	for j, x := range z {
		out[j] = float64(x)/temp - mx - math.Log(sum)
	}
	return out
}

// Draw frequencies match the sampling distribution q (within 5 standard
// errors over 40000 draws), every draw reports log q and log π correctly,
// and tokens outside the top k never appear.
func TestSamplerDistribution(t *testing.T) {
	z := []float32{1.5, -0.5, 0.25, 2, 0.25, -3}
	lp := logSoftmax(z, 1)
	for _, tc := range []struct {
		name string
		s    Sampler
	}{
		{"T=1", Sampler{Temperature: 1}},
		{"T=0.5", Sampler{Temperature: 0.5}},
		{"T=2 top-3", Sampler{Temperature: 2, TopK: 3}},
		// The cut falls inside a tie (0.25 at 2 and 4): index order keeps 2.
		{"top-3 tie", Sampler{Temperature: 1, TopK: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// q by hand: softmax(z/T) over the kept set.
			keep := []int{0, 1, 2, 3, 4, 5}
			if tc.s.TopK == 3 {
				keep = []int{0, 2, 3}
			}
			sub := make([]float32, len(keep))
			for i, j := range keep {
				sub[i] = z[j]
			}
			lq := logSoftmax(sub, tc.s.Temperature)
			q := make([]float64, len(z))
			for i, j := range keep {
				q[j] = math.Exp(lq[i])
			}
			const n = 40000
			counts := make([]int, len(z))
			rng := rand.New(rand.NewPCG(31, 1))
			s := tc.s
			for range n {
				d, err := s.Sample(rng, z)
				require.NoError(t, err)
				counts[d.Token]++
				assert.InDelta(t, lp[d.Token], d.LogProb, 1e-12)
				assert.InDelta(t, math.Log(q[d.Token]), d.SampleLogProb, 1e-12)
			}
			for j := range z {
				se := math.Sqrt(q[j]*(1-q[j])/n) + 1e-9
				assert.InDelta(t, q[j], float64(counts[j])/n, 5*se+1e-12, "token %d", j)
				if q[j] == 0 {
					assert.Zero(t, counts[j], "token %d is outside the top k", j)
				}
			}
		})
	}
}

func TestSamplerGreedyAndDeterminism(t *testing.T) {
	z := []float32{0.5, 3, -1, 3}
	s := Sampler{Greedy: true}
	d, err := s.Sample(nil, z)
	require.NoError(t, err)
	assert.Equal(t, int32(1), d.Token, "ties go to the lowest index")
	assert.InDelta(t, logSoftmax(z, 1)[1], d.LogProb, 1e-12)
	assert.Zero(t, d.SampleLogProb)

	draw := func(seed uint64) []int32 {
		rng := rand.New(rand.NewPCG(seed, 2))
		s := Sampler{Temperature: 0.8, TopK: 3}
		var out []int32
		for range 50 {
			d, err := s.Sample(rng, z)
			require.NoError(t, err)
			out = append(out, d.Token)
		}
		return out
	}
	assert.Equal(t, draw(7), draw(7))
	assert.NotEqual(t, draw(7), draw(8))
}

func TestSamplerRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name   string
		s      Sampler
		z      []float32
		errMsg string
	}{
		{"zero temperature", Sampler{}, []float32{1}, "temperature"},
		{"inf temperature", Sampler{Temperature: math.Inf(1)}, []float32{1}, "temperature"},
		{"negative top-k", Sampler{Temperature: 1, TopK: -1}, []float32{1}, "top-k"},
		{"NaN", Sampler{Temperature: 1}, []float32{1, float32(math.NaN())}, "logit 1 is NaN"},
		{"Inf", Sampler{Greedy: true}, []float32{float32(math.Inf(1))}, "logit 0 is +Inf"},
		{"empty", Sampler{Temperature: 1}, nil, "no logits"},
	} {
		_, err := tc.s.Sample(rng, tc.z)
		assert.ErrorContains(t, err, tc.errMsg, tc.name)
	}
	s := Sampler{Temperature: 1}
	_, err := s.Sample(nil, []float32{1, 2})
	assert.ErrorContains(t, err, "RNG")
}
