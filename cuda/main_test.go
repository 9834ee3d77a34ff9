//go:build gpu

package cuda

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// dev is the GPU every test and benchmark uses. A gpu-tagged binary runs
// only on a machine with a GPU: cu's package init exits the process
// without one, before TestMain.
var dev *Device

func TestMain(m *testing.M) {
	var err error
	if dev, err = Open(0); err != nil {
		fmt.Fprintln(os.Stderr, "cuda tests:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "cuda tests on", dev.Name())
	code := m.Run()
	if err := dev.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "cuda tests:", err)
		code = 1
	}
	os.Exit(code)
}

// assertClose checks got against the CPU reference want element by element:
// |got − want| ≤ 1e-5 + 1e-5·|want|, NaN where want is NaN, the same
// infinity where want is infinite.
func assertClose(t *testing.T, what string, want, got []float32) {
	t.Helper()
	if !assert.Len(t, got, len(want), what) {
		return
	}
	bad := 0
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		ok := false
		switch {
		case math.IsNaN(w):
			ok = math.IsNaN(g)
		case math.IsInf(w, 0):
			ok = g == w
		default:
			ok = math.Abs(g-w) <= 1e-5+1e-5*math.Abs(w)
		}
		if !ok {
			if bad < 5 {
				t.Errorf("%s[%d]: gpu %v, reference %v", what, i, g, w)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values outside the tolerance", what, bad, len(want))
	}
}

func TestOpenRejectsAMissingDevice(t *testing.T) {
	_, err := Open(1 << 20)
	assert.ErrorContains(t, err, "requested")
}

func TestPTXArch(t *testing.T) {
	for _, c := range []struct {
		major, minor int
		want         string
	}{{9, 0, "compute_90"}, {10, 0, "compute_90"}, {8, 0, "compute_80"}, {8, 9, "compute_80"}, {7, 5, ""}} {
		got, err := ptxArch(c.major, c.minor)
		if c.want == "" {
			assert.Error(t, err)
			continue
		}
		assert.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
}
