package kernels

import "fmt"

// Elementwise arithmetic of two float32 vectors, z[i] = x[i] ∘ y[i]: one
// IEEE operation per element, so any number of lanes gives the same bits
// as the plain loop (ElementwiseRef; TestElementwiseMatchesRefBitwise).
// With AVX2 the whole blocks of 8 run in assembly (elementwise_amd64.s),
// the last len mod 8 in Go. The engine's +, −, ⊙ and ÷ of two tensors
// into a kept output run here (the residual adds and their gradients).

// ElementwiseOp is which operation Elementwise does.
type ElementwiseOp int

const (
	ElementwiseAdd ElementwiseOp = iota // x + y
	ElementwiseSub                      // x − y
	ElementwiseMul                      // x · y
	ElementwiseDiv                      // x / y
)

// Elementwise sets z[i] = x[i] ∘ y[i] for i < len(z); x and y must have
// len(z) values, and z may be x or y (the same first element), or else
// must not overlap them.
func Elementwise(op ElementwiseOp, x, y, z []float32) error {
	if err := checkElementwise(op, len(x), len(y), len(z)); err != nil {
		return err
	}
	n8 := len(z) &^ 7
	if useAVX2 && n8 > 0 {
		elementwiseAVX2(int(op), &x[0], &y[0], &z[0], n8)
	} else {
		n8 = 0
	}
	elementwiseGo(op, x[n8:], y[n8:], z[n8:])
	return nil
}

// ElementwiseRef is Elementwise in one plain loop.
func ElementwiseRef(op ElementwiseOp, x, y, z []float32) error {
	if err := checkElementwise(op, len(x), len(y), len(z)); err != nil {
		return err
	}
	elementwiseGo(op, x, y, z)
	return nil
}

func elementwiseGo(op ElementwiseOp, x, y, z []float32) {
	x, y = x[:len(z)], y[:len(z)]
	switch op {
	case ElementwiseAdd:
		for i := range z {
			z[i] = x[i] + y[i]
		}
	case ElementwiseSub:
		for i := range z {
			z[i] = x[i] - y[i]
		}
	case ElementwiseMul:
		for i := range z {
			z[i] = x[i] * y[i]
		}
	case ElementwiseDiv:
		for i := range z {
			z[i] = x[i] / y[i]
		}
	}
}

func checkElementwise(op ElementwiseOp, nx, ny, nz int) error {
	if op < ElementwiseAdd || op > ElementwiseDiv {
		return fmt.Errorf("elementwise: unknown operation %d", op)
	}
	if nx != nz || ny != nz {
		return fmt.Errorf("elementwise: x, y, z have %d, %d, %d values, want the same", nx, ny, nz)
	}
	return nil
}
