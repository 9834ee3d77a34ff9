//go:build gpu

package engine

import (
	"fmt"
	"sync"

	"arew/cuda"
)

// The one GPU the engine uses, opened on first use and kept for the life of
// the process.
var gpu struct {
	sync.Once
	dev *cuda.Device
	err error
}

// cudaLogProb opens GPU 0 (once) and returns its token log-prob kernels.
func cudaLogProb() (logProbKernels, error) {
	gpu.Do(func() {
		gpu.dev, gpu.err = cuda.Open(0)
		if gpu.err != nil {
			gpu.err = fmt.Errorf("engine: device cuda: %w", gpu.err)
		}
	})
	if gpu.err != nil {
		return nil, gpu.err
	}
	return cudaKernels{gpu.dev}, nil
}

type cudaKernels struct{ d *cuda.Device }

func (k cudaKernels) forward(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	return k.d.TokenLogProb(logits, n, v, targets, logp, lse, ent)
}

func (k cudaKernels) backward(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	return k.d.TokenLogProbBackward(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits, accumulate)
}
