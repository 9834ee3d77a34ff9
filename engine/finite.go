package engine

import "fmt"

// FirstNonFinite is the index of the first NaN or ±Inf in x, or -1.
func FirstNonFinite(x []float32) int {
	for i, v := range x {
		// v−v is 0 for every finite v and NaN for NaN and ±Inf: one
		// comparison per value.
		if v-v != 0 {
			return i
		}
	}
	return -1
}

// CheckFinite returns an error naming the first F32 tensor that holds a
// NaN or ±Inf, and where; nil when every value is finite. Integer tensors
// are always finite.
func CheckFinite(tensors []NamedTensor) error {
	for _, t := range tensors {
		if d, ok := t.Data.([]float32); ok {
			if i := FirstNonFinite(d); i >= 0 {
				return nonFinite(t.Name, d, i)
			}
		}
	}
	return nil
}

// CheckParamsFinite is CheckFinite on the values of a parameter store.
func CheckParamsFinite(store *ParamStore) error {
	for _, p := range store.Params() {
		d := p.Data()
		if i := FirstNonFinite(d); i >= 0 {
			return nonFinite(p.Name, d, i)
		}
	}
	return nil
}

func nonFinite(name string, d []float32, i int) error {
	n := 0
	for _, v := range d[i:] {
		if v-v != 0 {
			n++
		}
	}
	return fmt.Errorf("%q holds %d non-finite values (the first, %v, at index %d of %d)", name, n, float64(d[i]), i, len(d))
}
