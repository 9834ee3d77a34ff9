//go:build gpu

package cuda

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"arew/kernels"
)

// The benchmarks time back-to-back launches and one Sync, so a launch's
// fixed cost is part of the figure. Each reports the bytes its kernel must
// move (b.SetBytes, and GB/s), and copy_frac: that bandwidth over the
// copy kernel's (bench.cu), measured once in the same process on 1 GiB
// buffers, which is what the device can really stream.

var copyOnce struct {
	sync.Once
	gbs float64
	err error
}

// copyGBs is the copy kernel's bandwidth in GB/s, read + write counted.
func copyGBs() (float64, error) {
	copyOnce.Do(func() {
		const bytes = 1 << 30
		src, err := dev.Alloc(bytes)
		if err != nil {
			copyOnce.err = err
			return
		}
		defer src.Free()
		dst, err := dev.Alloc(bytes)
		if err != nil {
			copyOnce.err = err
			return
		}
		defer dst.Free()
		if err := dev.fill(src, bytes/4, 1, -1, 1); err != nil {
			copyOnce.err = err
			return
		}
		run := func(reps int) (time.Duration, error) {
			start := time.Now()
			err := dev.do(func() error {
				for range reps {
					if err := dev.launch("copy_kernel", 8*dev.sms, 512, src, dst, bytes/16); err != nil {
						return err
					}
				}
				return nil
			})
			if err == nil {
				err = dev.Sync()
			}
			return time.Since(start), err
		}
		if _, err := run(5); err != nil { // warm up
			copyOnce.err = err
			return
		}
		const reps = 50
		el, err := run(reps)
		copyOnce.err = err
		copyOnce.gbs = 2 * bytes * reps / el.Seconds() / 1e9
	})
	return copyOnce.gbs, copyOnce.err
}

// fill writes n uniform floats in [lo, hi) on the device.
func (d *Device) fill(x *Buffer, n int, seed int, lo, hi float64) error {
	return d.do(func() error { return d.launch("fill_kernel", 4*d.sms, 256, x, n, seed, lo, hi) })
}

// timeLaunches runs launch b.N times, syncs, and reports the bandwidth.
func timeLaunches(b *testing.B, bytes int64, launch func() error) {
	b.Helper()
	copyBW, err := copyGBs()
	if err != nil {
		b.Fatal(err)
	}
	if err := launch(); err != nil { // warm up (and JIT) outside the timer
		b.Fatal(err)
	}
	if err := dev.Sync(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for range b.N {
		if err := launch(); err != nil {
			b.Fatal(err)
		}
	}
	if err := dev.Sync(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	gbs := float64(bytes) * float64(b.N) / b.Elapsed().Seconds() / 1e9
	b.ReportMetric(gbs, "GB/s")
	b.ReportMetric(gbs/copyBW, "copy_frac")
	b.ReportMetric(copyBW, "copy_GB/s")
}

func BenchmarkCopy(b *testing.B) {
	const bytes = 1 << 30
	src, _ := dev.Alloc(bytes)
	dst, _ := dev.Alloc(bytes)
	defer freeAll(src, dst)
	timeLaunches(b, 2*bytes, func() error {
		return dev.do(func() error { return dev.launch("copy_kernel", 8*dev.sms, 512, src, dst, bytes/16) })
	})
}

// BenchmarkTokenLogProb: fwd reads the logits once; bwd reads them and
// writes dlogits; fwdbwd is both (3 passes over n×v floats), the target
// figure at 32768×32768; inplace writes dlogits over the logits.
func BenchmarkTokenLogProb(b *testing.B) {
	shapes := []struct {
		n, v int
		vers []Version
	}{{2048, 128, []Version{Plain, Fast}}, {4096, 32768, []Version{Plain, Fast}}, {32768, 32768, []Version{Fast}}}
	for _, s := range shapes {
		for _, ver := range s.vers {
			for _, op := range []string{"fwd", "bwd", "fwdbwd", "fwdbwd_inplace"} {
				b.Run(fmt.Sprintf("%s/v%d/%dx%d", op, ver, s.n, s.v), func(b *testing.B) {
					benchLogProb(b, ver, op, s.n, s.v)
				})
			}
		}
	}
}

func benchLogProb(b *testing.B, ver Version, op string, n, v int) {
	nv := int64(n) * int64(v)
	var bs devBufs
	defer bs.free()
	z, dz := bs.alloc(dev, int(nv)), bs.alloc(dev, int(nv))
	y, lp, l, g := bs.alloc(dev, n), bs.alloc(dev, n), bs.alloc(dev, n), bs.alloc(dev, n)
	if bs.err != nil {
		b.Fatal(bs.err)
	}
	err := dev.do(func() error {
		if err := dev.launch("fill_kernel", 4*dev.sms, 256, z, int(nv), 1, -8.0, 8.0); err != nil {
			return err
		}
		if err := dev.launch("fill_kernel", 4*dev.sms, 256, g, n, 2, -1.0, 1.0); err != nil {
			return err
		}
		return dev.launch("fill_index_kernel", 4*dev.sms, 256, y, n, 3, v)
	})
	if err != nil {
		b.Fatal(err)
	}
	fwd := func() error { return dev.TokenLogProbOn(ver, z, y, lp, l, nil, n, v) }
	bwd := func(out *Buffer) error {
		return dev.TokenLogProbBackwardOn(ver, z, y, l, nil, g, nil, out, n, v, false)
	}
	if err := fwd(); err != nil {
		b.Fatal(err)
	}
	switch op {
	case "fwd":
		timeLaunches(b, 4*nv, fwd)
	case "bwd":
		timeLaunches(b, 8*nv, func() error { return bwd(dz) })
	case "fwdbwd":
		timeLaunches(b, 12*nv, func() error {
			if err := fwd(); err != nil {
				return err
			}
			return bwd(dz)
		})
	case "fwdbwd_inplace":
		// Each pass overwrites the logits with their gradient; the values
		// drift but stay finite (|dz| ≤ 2), so the work per pass is the same.
		timeLaunches(b, 12*nv, func() error {
			if err := fwd(); err != nil {
				return err
			}
			return bwd(z)
		})
	}
}

// advantageBatch is the margin target's layout: b trajectories of 256
// tokens (a 32-token prompt, then 8 turns of a 16-token agent step and a
// 12-token reply), steps critiqued +1, −1, 0 in turn.
func advantageBatch(b int) (kernels.Packed, kernels.Steps) {
	p := kernels.Packed{Offsets: []int32{0}}
	s := kernels.Steps{Offsets: []int32{0}}
	for range b {
		lo := len(p.Mask)
		p.Mask = append(p.Mask, make([]uint8, 32)...)
		for k := range 8 {
			st := len(p.Mask)
			for range 16 {
				p.Mask = append(p.Mask, 1)
			}
			p.Mask = append(p.Mask, make([]uint8, 12)...)
			s.Start = append(s.Start, int32(st))
			s.End = append(s.End, int32(st+16))
			s.Critique = append(s.Critique, int8([]int{1, -1, 0}[(k+lo/256)%3]))
		}
		p.Offsets = append(p.Offsets, int32(len(p.Mask)))
		s.Offsets = append(s.Offsets, int32(len(s.Critique)))
	}
	return p, s
}

// BenchmarkMargin: 1M tokens in 4096 trajectories (the target shape).
// Bytes: the mask (1 B/token) and out (4 B/token written, +4 read when
// accumulating), the steps (9 B each) and offsets.
func BenchmarkMargin(b *testing.B) {
	p, s := advantageBatch(4096)
	pd, err := dev.UploadPacked(p)
	if err != nil {
		b.Fatal(err)
	}
	defer pd.Free()
	sd, err := dev.UploadSteps(p, s)
	if err != nil {
		b.Fatal(err)
	}
	defer sd.Free()
	out, err := Upload(dev, make([]float32, pd.T))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Free()
	for _, ver := range []Version{Plain, Fast, V3} {
		for _, mode := range []kernels.MarginMode{kernels.MarginStep, kernels.MarginStepSpread} {
			for _, acc := range []bool{false, true} {
				bytes := int64(pd.T)*5 + int64(sd.S)*9 + 2*int64(pd.B+1)*4
				if acc {
					bytes += int64(pd.T) * 4
				}
				b.Run(fmt.Sprintf("v%d/%v/acc=%v/%dx256", ver, mode, acc, pd.B), func(b *testing.B) {
					timeLaunches(b, bytes, func() error { return dev.MarginOn(ver, pd, sd, mode, 0.5, out, acc) })
				})
			}
		}
	}
}

// BenchmarkGAE: mask, rewards, values read, adv and ret written: 17 B/token.
func BenchmarkGAE(b *testing.B) {
	for _, nb := range []int{512, 4096} {
		p, _ := advantageBatch(nb)
		pd, err := dev.UploadPacked(p)
		if err != nil {
			b.Fatal(err)
		}
		var bs devBufs
		r, v, a, t := bs.alloc(dev, pd.T), bs.alloc(dev, pd.T), bs.alloc(dev, pd.T), bs.alloc(dev, pd.T)
		if bs.err != nil {
			b.Fatal(bs.err)
		}
		if err := dev.fill(r, pd.T, 4, 0, 0); err != nil { // rewards 0: no observation rewards to reject
			b.Fatal(err)
		}
		if err := dev.fill(v, pd.T, 5, -1, 1); err != nil {
			b.Fatal(err)
		}
		for _, ver := range []Version{Plain, Fast} {
			b.Run(fmt.Sprintf("v%d/%dx256", ver, nb), func(b *testing.B) {
				timeLaunches(b, 17*int64(pd.T), func() error { return dev.GAEOn(ver, pd, r, v, 0.99, 0.95, a, t) })
			})
		}
		bs.free()
		pd.Free()
	}
}

// BenchmarkGroupBaseline: groups of 8 rollouts; scores and groups read,
// the mask read and out written (5 B/token).
func BenchmarkGroupBaseline(b *testing.B) {
	p, _ := advantageBatch(4096)
	pd, err := dev.UploadPacked(p)
	if err != nil {
		b.Fatal(err)
	}
	defer pd.Free()
	scores, groups := make([]float32, pd.B), make([]int32, pd.B)
	for i := range scores {
		scores[i], groups[i] = float32(i%3), int32(i/8)
	}
	var bs devBufs
	defer bs.free()
	sb, gb := upload(&bs, dev, scores), upload(&bs, dev, groups)
	ab, ob := bs.alloc(dev, pd.B), bs.alloc(dev, pd.T)
	if bs.err != nil {
		b.Fatal(bs.err)
	}
	for _, ver := range []Version{Plain, Fast} {
		b.Run(fmt.Sprintf("v%d/%dx256", ver, pd.B), func(b *testing.B) {
			timeLaunches(b, 5*int64(pd.T)+12*int64(pd.B), func() error {
				return dev.GroupBaselineOn(ver, pd, sb, gb, kernels.GRPONorm, ab, ob)
			})
		})
	}
}
