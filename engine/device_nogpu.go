//go:build !gpu

package engine

import "fmt"

// cudaLogProb in a default build: the CUDA kernels are not linked.
func cudaLogProb() (logProbKernels, error) {
	return nil, fmt.Errorf("engine: device cuda needs a binary built with -tags gpu (and the CUDA toolkit); this binary has the CPU kernels only")
}
