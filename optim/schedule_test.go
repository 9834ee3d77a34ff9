package optim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Peak 1e-3, floor 1e-4, warm-up 4, cosine to step 14 (10 decay steps):
//
//	k = 0..3: 1e-3·(k+1)/4 = 2.5e-4, 5e-4, 7.5e-4, 1e-3
//	k = 4:    frac 0   → 1e-4 + ½·9e-4·(1 + 1)   = 1e-3
//	k = 9:    frac ½   → 1e-4 + ½·9e-4·(1 + 0)   = 5.5e-4
//	k = 11:   frac 0.7 → 1e-4 + ½·9e-4·(1 + cos 0.7π) = 1e-4 + 4.5e-4·0.4122147 = 2.854966e-4
//	k ≥ 14:   1e-4
func TestScheduleCosine(t *testing.T) {
	s := Schedule{Peak: 1e-3, Floor: 1e-4, Warmup: 4, Total: 14}
	assert.NoError(t, s.Validate())
	for k, want := range map[int]float64{0: 2.5e-4, 1: 5e-4, 2: 7.5e-4, 3: 1e-3, 4: 1e-3, 9: 5.5e-4, 11: 2.854966e-4, 14: 1e-4, 1000: 1e-4} {
		assert.InDelta(t, want, s.LR(k), 1e-10, "step %d", k)
	}
	for k := 4; k < 14; k++ {
		assert.Less(t, s.LR(k+1), s.LR(k), "decreasing at %d", k)
	}
	assert.InDelta(t, 1e-4+4.5e-4*(1+math.Cos(0.7*math.Pi)), s.LR(11), 1e-15)
}

func TestScheduleConstant(t *testing.T) {
	s := Schedule{Peak: 3e-4, Warmup: 2}
	assert.NoError(t, s.Validate())
	assert.InDelta(t, 1.5e-4, s.LR(0), 1e-15)
	for _, k := range []int{1, 2, 50, 1e6} {
		assert.Equal(t, 3e-4, s.LR(k))
	}
	assert.Equal(t, 3e-4, Schedule{Peak: 3e-4}.LR(0), "no warm-up")
}

func TestScheduleRejectsBadInput(t *testing.T) {
	for _, s := range []Schedule{
		{Peak: -1},
		{Peak: 1, Floor: 2},
		{Peak: 1, Warmup: -1},
		{Peak: 1, Warmup: 10, Total: 10},
		{Peak: math.NaN()},
	} {
		assert.Error(t, s.Validate(), "%+v", s)
	}
}
