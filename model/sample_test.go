package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
