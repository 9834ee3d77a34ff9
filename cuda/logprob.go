//go:build gpu

package cuda

import (
	"fmt"

	"arew/kernels"
)

// Version picks a kernel version of a family: the numbered versions of the
// .cu files, 1 the plain loop. The host-slice entry points (TokenLogProb,
// MarginCorrection, ...) use each family's fastest measured version.
type Version int

const (
	Plain Version = 1
	Fast  Version = 2
	V3    Version = 3 // the margin correction only
)

// check accepts the versions 1 to newest of a family.
func (v Version) check(newest Version) error {
	if v < Plain || v > newest {
		return fmt.Errorf("cuda: kernel version %d; this family has 1 to %d", int(v), int(newest))
	}
	return nil
}

// TokenLogProbOn launches the forward on device buffers: logits (n, v)
// float32, targets (n) int32, logp, lse and ent (n) float32; ent may be nil.
// It checks buffer sizes, not contents: targets must lie in [0, v) (a bad
// one gives logp = NaN). It returns after the launch; Sync or a copy back
// waits for it.
func (d *Device) TokenLogProbOn(ver Version, logits, targets, logp, lse, ent *Buffer, n, v int) error {
	if err := ver.check(Fast); err != nil {
		return err
	}
	if n < 0 || v < 1 {
		return fmt.Errorf("cuda: token log-prob: bad shape n=%d v=%d", n, v)
	}
	for _, c := range []error{
		need("logits", logits, n*v, 4, false), need("targets", targets, n, 4, false),
		need("logp", logp, n, 4, false), need("lse", lse, n, 4, false), need("ent", ent, n, 4, true),
	} {
		if c != nil {
			return fmt.Errorf("cuda: token log-prob: %w", c)
		}
	}
	if n == 0 {
		return nil
	}
	return d.do(func() error {
		if ver == Plain {
			return d.launch("token_logprob_forward_kernel1", threadGrid(n, 128), 128, logits, targets, logp, lse, ent, n, v)
		}
		return d.launch("token_logprob_forward_kernel2", n, rowBlock(v), logits, targets, logp, lse, ent, n, v)
	})
}

// TokenLogProbBackwardOn launches the backward on device buffers: dlogits
// (n, v) gets, or with accumulate has added to it, gLogp·(1[j=y] − p) −
// gEnt·p·(log p + H). gEnt nil means no entropy term (ent is then unused
// and may be nil). dlogits may be logits itself (in place). Sizes are
// checked, contents not (see TokenLogProbOn).
func (d *Device) TokenLogProbBackwardOn(ver Version, logits, targets, lse, ent, gLogp, gEnt, dlogits *Buffer, n, v int, accumulate bool) error {
	if err := ver.check(Fast); err != nil {
		return err
	}
	if n < 0 || v < 1 {
		return fmt.Errorf("cuda: token log-prob backward: bad shape n=%d v=%d", n, v)
	}
	for _, c := range []error{
		need("logits", logits, n*v, 4, false), need("targets", targets, n, 4, false),
		need("lse", lse, n, 4, false), need("gLogp", gLogp, n, 4, false),
		need("gEnt", gEnt, n, 4, true), need("dlogits", dlogits, n*v, 4, false),
	} {
		if c != nil {
			return fmt.Errorf("cuda: token log-prob backward: %w", c)
		}
	}
	if gEnt != nil {
		if err := need("ent", ent, n, 4, false); err != nil {
			return fmt.Errorf("cuda: token log-prob backward: the entropy gradient needs ent: %w", err)
		}
	} else {
		ent = nil
	}
	if n == 0 {
		return nil
	}
	return d.do(func() error {
		if ver == Plain {
			return d.launch("token_logprob_backward_kernel1", threadGrid(n, 128), 128, logits, targets, lse, ent, gLogp, gEnt, dlogits, n, v, accumulate)
		}
		return d.launch("token_logprob_backward_kernel2", n, rowBlock(v), logits, targets, lse, ent, gLogp, gEnt, dlogits, n, v, accumulate)
	})
}

// TokenLogProb is kernels.TokenLogProb on the GPU, host slices in and out,
// with its contract (shapes, errors before any write, the NaN and ±Inf
// rows). Each call copies logits to the device and the outputs back, so it
// pays for itself only where the logits are large; TokenLogProbOn keeps
// them on the device.
func (d *Device) TokenLogProb(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	return d.tokenLogProb(Fast, logits, n, v, targets, logp, lse, ent)
}

func (d *Device) tokenLogProb(ver Version, logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if err := kernels.CheckLogProbArgs(logits, n, v, targets, logp, lse, ent); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	var bufs devBufs
	defer bufs.free()
	zb := upload(&bufs, d, logits[:n*v])
	yb := upload(&bufs, d, targets[:n])
	lpb, lb := bufs.alloc(d, n), bufs.alloc(d, n)
	var eb *Buffer
	if ent != nil {
		eb = bufs.alloc(d, n)
	}
	if bufs.err != nil {
		return bufs.err
	}
	if err := d.TokenLogProbOn(ver, zb, yb, lpb, lb, eb, n, v); err != nil {
		return err
	}
	if err := CopyFrom(logp[:n], lpb); err != nil {
		return err
	}
	if err := CopyFrom(lse[:n], lb); err != nil {
		return err
	}
	if ent != nil {
		return CopyFrom(ent[:n], eb)
	}
	return nil
}

// TokenLogProbBackward is kernels.TokenLogProbBackward on the GPU, host
// slices in and out (see TokenLogProb for the cost).
func (d *Device) TokenLogProbBackward(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	return d.tokenLogProbBackward(Fast, logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits, accumulate)
}

func (d *Device) tokenLogProbBackward(ver Version, logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	if err := kernels.CheckLogProbBackwardArgs(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	var bufs devBufs
	defer bufs.free()
	zb := upload(&bufs, d, logits[:n*v])
	yb := upload(&bufs, d, targets[:n])
	lb := upload(&bufs, d, lse[:n])
	gb := upload(&bufs, d, gLogp[:n])
	var eb, hb *Buffer
	if gEnt != nil {
		eb, hb = upload(&bufs, d, ent[:n]), upload(&bufs, d, gEnt[:n])
	}
	var db *Buffer
	if accumulate {
		db = upload(&bufs, d, dlogits[:n*v])
	} else {
		db = bufs.alloc(d, n*v)
	}
	if bufs.err != nil {
		return bufs.err
	}
	if err := d.TokenLogProbBackwardOn(ver, zb, yb, lb, eb, gb, hb, db, n, v, accumulate); err != nil {
		return err
	}
	return CopyFrom(dlogits[:n*v], db)
}

// devBufs collects the temporary buffers of a host-slice call; the first
// error sticks and later steps do nothing.
type devBufs struct {
	list []*Buffer
	err  error
}

func (bs *devBufs) add(b *Buffer, err error) *Buffer {
	if bs.err != nil {
		return nil
	}
	if err != nil {
		bs.err = err
		return nil
	}
	bs.list = append(bs.list, b)
	return b
}

func (bs *devBufs) alloc(d *Device, nFloat32 int) *Buffer {
	if bs.err != nil {
		return nil
	}
	return bs.add(d.Alloc(int64(nFloat32) * 4))
}

func (bs *devBufs) free() { freeAll(bs.list...) }

func upload[T Elem](bs *devBufs, d *Device, src []T) *Buffer {
	if bs.err != nil {
		return nil
	}
	return bs.add(Upload(d, src))
}
