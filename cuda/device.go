//go:build gpu

package cuda

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

// Device is one GPU with the kernels loaded: its primary context and one
// module per kernel file. Its methods may be called from any goroutine;
// they take turns (a mutex), and each binds the context to its OS thread
// for the duration of the call, as the driver API requires.
type Device struct {
	mu   sync.Mutex
	dev  cu.Device
	ctx  cu.CUContext
	name string
	arch string
	sms  int
	fns  map[string]cu.Function
}

// Open retains the primary context of GPU ordinal and loads the embedded PTX.
func Open(ordinal int) (*Device, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("cuda: count devices: %w", err)
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda: device %d requested, %d present", ordinal, n)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	d := &Device{dev: dev, fns: map[string]cu.Function{}}
	if d.name, err = dev.Name(); err != nil {
		return nil, fmt.Errorf("cuda: device %d name: %w", ordinal, err)
	}
	major, err := dev.Attribute(cu.ComputeCapabilityMajor)
	if err != nil {
		return nil, fmt.Errorf("cuda: %s compute capability: %w", d.name, err)
	}
	minor, err := dev.Attribute(cu.ComputeCapabilityMinor)
	if err != nil {
		return nil, fmt.Errorf("cuda: %s compute capability: %w", d.name, err)
	}
	if d.sms, err = dev.Attribute(cu.MultiprocessorCount); err != nil {
		return nil, fmt.Errorf("cuda: %s multiprocessors: %w", d.name, err)
	}
	if d.arch, err = ptxArch(major, minor); err != nil {
		return nil, err
	}
	if d.ctx, err = dev.RetainPrimaryCtx(); err != nil {
		return nil, fmt.Errorf("cuda: %s context: %w", d.name, err)
	}
	err = d.do(func() error {
		for _, m := range moduleNames {
			src, err := ptxSource(m, d.arch)
			if err != nil {
				return err
			}
			mod, err := cu.LoadData(src)
			if err != nil {
				return fmt.Errorf("cuda: load module %s (%s): %w", m, d.arch, err)
			}
			for _, k := range kernelNames[m] {
				fn, err := mod.Function(k)
				if err != nil {
					return fmt.Errorf("cuda: kernel %s in %s: %w", k, m, err)
				}
				d.fns[k] = fn
			}
		}
		return nil
	})
	if err != nil {
		d.dev.ReleasePrimaryCtx()
		return nil, err
	}
	return d, nil
}

// Close waits for the launched work and releases the primary context; the
// last release frees every buffer and module of it. Neither the device nor
// its buffers may be used afterwards.
func (d *Device) Close() error {
	err := d.Sync()
	if rerr := d.dev.ReleasePrimaryCtx(); rerr != nil && err == nil {
		err = fmt.Errorf("cuda: release the context: %w", rerr)
	}
	return err
}

// kernelNames lists the kernels each module must provide.
var kernelNames = map[string][]string{
	"token_logprob_forward":  {"token_logprob_forward_kernel1", "token_logprob_forward_kernel2"},
	"token_logprob_backward": {"token_logprob_backward_kernel1", "token_logprob_backward_kernel2"},
	"margin":                 {"margin_kernel1", "margin_kernel2", "margin_kernel3"},
	"gae":                    {"gae_kernel1", "gae_kernel2"},
	"group_baseline":         {"group_advantages_kernel1", "group_advantages_kernel2", "broadcast_kernel"},
	"bench":                  {"copy_kernel", "fill_kernel", "fill_index_kernel"},
}

// Name is the GPU's name and the PTX target loaded, e.g. "NVIDIA H200 (compute_90)".
func (d *Device) Name() string { return fmt.Sprintf("%s (%s)", d.name, d.arch) }

// Sync waits for every launched kernel and reports the first error of any.
func (d *Device) Sync() error {
	return d.do(func() error {
		if err := cu.Synchronize(); err != nil {
			return fmt.Errorf("cuda: synchronize: %w", err)
		}
		return nil
	})
}

// do runs f with the device's context current on a locked OS thread.
func (d *Device) do(f func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("cuda: make the context current: %w", err)
	}
	return f()
}

// launch starts kernel name on a (grid) × (block) launch, asynchronously.
// Each argument becomes one 8-byte kernel parameter, because cu copies
// every parameter as 8 bytes: *Buffer (nil: a NULL pointer), int and bool
// (as long long), float64 (as double). Call it inside d.do.
func (d *Device) launch(name string, grid, block int, args ...any) error {
	fn, ok := d.fns[name]
	if !ok {
		return fmt.Errorf("cuda: no kernel %s", name)
	}
	if grid < 1 || grid > math.MaxInt32 || block < 1 || block > 1024 {
		return fmt.Errorf("cuda: launch %s: grid %d, block %d out of range", name, grid, block)
	}
	vals := make([]uint64, len(args))
	params := make([]unsafe.Pointer, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *Buffer:
			if x != nil {
				vals[i] = uint64(x.ptr)
			}
		case int:
			vals[i] = uint64(int64(x))
		case bool:
			if x {
				vals[i] = 1
			}
		case float64:
			vals[i] = math.Float64bits(x)
		default:
			return fmt.Errorf("cuda: launch %s: argument %d has type %T, want *Buffer, int, bool or float64", name, i, a)
		}
		params[i] = unsafe.Pointer(&vals[i])
	}
	if err := fn.Launch(grid, 1, 1, block, 1, 1, 0, cu.Stream{}, params); err != nil {
		return fmt.Errorf("cuda: launch %s (grid %d, block %d): %w", name, grid, block, err)
	}
	return nil
}

// rowBlock is the block size for one block per row of v elements: about
// four float4 loads per thread, a multiple of 32 in [32, 1024].
func rowBlock(v int) int {
	t := (v + 15) / 16
	t = (t + 31) / 32 * 32
	return min(max(t, 32), 1024)
}

// threadGrid is the grid of blocks of size block covering n threads.
func threadGrid(n, block int) int { return max((n+block-1)/block, 1) }
