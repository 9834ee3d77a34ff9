package engine

import (
	"fmt"
	"sync"

	"arew/kernels"
)

// Device is where the engine's fused token log-prob ops (TokenLogProb,
// TokenLogProbEntropy) run their kernels.
type Device int

const (
	// CPU runs package kernels' fast paths; the default.
	CPU Device = iota
	// CUDA runs package cuda's kernels on GPU 0. Only a binary built with
	// -tags gpu has it (see SetDevice).
	CUDA
)

// String is the name ParseDevice reads.
func (d Device) String() string {
	switch d {
	case CPU:
		return "cpu"
	case CUDA:
		return "cuda"
	}
	return fmt.Sprintf("Device(%d)", int(d))
}

// ParseDevice reads a device name: cpu or cuda.
func ParseDevice(name string) (Device, error) {
	switch name {
	case "cpu":
		return CPU, nil
	case "cuda":
		return CUDA, nil
	}
	return 0, fmt.Errorf("engine: unknown device %q; want cpu or cuda", name)
}

// logProbKernels is what a token log-prob op calls: kernels.TokenLogProb and
// kernels.TokenLogProbBackward, or their CUDA twins, with one signature.
type logProbKernels interface {
	forward(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error
	backward(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error
}

type cpuLogProb struct{}

func (cpuLogProb) forward(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	return kernels.TokenLogProb(logits, n, v, targets, logp, lse, ent)
}

func (cpuLogProb) backward(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	return kernels.TokenLogProbBackward(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits, accumulate)
}

// current is the engine's device and the kernels of the ops built on it.
var current = struct {
	sync.Mutex
	dev  Device
	kern logProbKernels
}{dev: CPU, kern: cpuLogProb{}}

// SetDevice makes the token log-prob ops built after it run on d; ops
// already built keep theirs. Set it before building a graph.
//
// CUDA needs a binary built with -tags gpu (and so the CUDA toolkit to
// build, and a GPU to run: such a binary exits at start without one); in a
// default build SetDevice(CUDA) returns an error saying so and the device
// stays as it was. On the GPU the ops copy the logits to the device and the
// results back on every run (gorgonia's values live in host memory), so
// they pay only where the logits are large.
func SetDevice(d Device) error {
	var kern logProbKernels
	switch d {
	case CPU:
		kern = cpuLogProb{}
	case CUDA:
		k, err := cudaLogProb()
		if err != nil {
			return err
		}
		kern = k
	default:
		return fmt.Errorf("engine: unknown device %v; want cpu or cuda", d)
	}
	current.Lock()
	defer current.Unlock()
	current.dev, current.kern = d, kern
	return nil
}

// CurrentDevice is the device new ops are built for.
func CurrentDevice() Device {
	current.Lock()
	defer current.Unlock()
	return current.dev
}

func currentKernels() (Device, logProbKernels) {
	current.Lock()
	defer current.Unlock()
	return current.dev, current.kern
}
