package kernels

import (
	"fmt"
	"math"
)

// The tanh approximation of GELU used by GPT-2 and by PyTorch's
// nn.GELU(approximate="tanh"):
//
//	gelu(x) = ½·x·(1 + tanh(u)),   u = √(2/π)·(x + 0.044715·x³)
const (
	geluK = 0.7978845608028654 // √(2/π)
	geluA = 0.044715
)

// GELUForwardRef writes y[i] = gelu(x[i]) for x and y of the same length
// (any shape, elementwise), in float64. Limits are defined: gelu(+Inf) =
// +Inf, gelu(−Inf) = 0 (where the formula is −Inf·0), gelu(NaN) = NaN; a
// large finite |x| (1e4, even 1e38) needs no care in float64 (tanh(u) is
// exactly ±1 there, x³ stays finite).
func GELUForwardRef(x, y []float32) error {
	if err := checkGELU("gelu", len(x), len(y)); err != nil {
		return err
	}
	for i, v := range x {
		y[i] = float32(geluRef(float64(v)))
	}
	return nil
}

// GELUBackwardRef writes dx[i] = dy[i]·gelu'(x[i]) (overwriting dx), with
//
//	gelu'(x) = ½·(1 + tanh(u)) + ½·x·(1 − tanh²(u))·√(2/π)·(1 + 3·0.044715·x²)
//
// and the limits gelu'(+Inf) = 1, gelu'(−Inf) = 0, gelu'(NaN) = NaN.
func GELUBackwardRef(x, dy, dx []float32) error {
	if err := checkGELUBackward(len(x), len(dy), len(dx)); err != nil {
		return err
	}
	for i, v := range x {
		dx[i] = float32(float64(dy[i]) * geluGradRef(float64(v)))
	}
	return nil
}

func geluRef(x float64) float64 {
	if math.IsInf(x, -1) {
		return 0
	}
	u := geluK * (x + geluA*x*x*x)
	return 0.5 * x * (1 + math.Tanh(u))
}

func geluGradRef(x float64) float64 {
	if math.IsInf(x, 0) {
		if x > 0 {
			return 1
		}
		return 0
	}
	t := math.Tanh(geluK * (x + geluA*x*x*x))
	return 0.5*(1+t) + 0.5*x*(1-t*t)*geluK*(1+3*geluA*x*x)
}

func checkGELU(what string, nx, ny int) error {
	if nx != ny {
		return fmt.Errorf("%s: input has %d values, output %d", what, nx, ny)
	}
	return nil
}

func checkGELUBackward(nx, ndy, ndx int) error {
	if nx != ndy || nx != ndx {
		return fmt.Errorf("gelu backward: x, dy and dx must have the same length, got %d, %d, %d", nx, ndy, ndx)
	}
	return nil
}
