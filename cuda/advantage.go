//go:build gpu

package cuda

import (
	"fmt"

	"arew/kernels"
)

// MarginOn launches the AREW margin correction (margin.cu) on device data:
// out (T) float32 gets λ·u, or with accumulate has λ·u added. pd and sd
// must describe the same batch (UploadSteps validated sd against it).
func (d *Device) MarginOn(ver Version, pd *PackedOnDevice, sd *StepsOnDevice, mode kernels.MarginMode, lambda float64, out *Buffer, accumulate bool) error {
	if err := ver.check(V3); err != nil {
		return err
	}
	if sd.b != pd.B {
		return fmt.Errorf("cuda: margin correction: steps for %d trajectories, batch of %d", sd.b, pd.B)
	}
	if _, err := kernels.ParseMarginMode(mode.String()); err != nil {
		return fmt.Errorf("cuda: margin correction: unknown mode %v", mode)
	}
	if err := need("out", out, pd.T, 4, false); err != nil {
		return fmt.Errorf("cuda: margin correction: %w", err)
	}
	if pd.B == 0 || pd.T == 0 {
		return nil
	}
	return d.do(func() error {
		args := []any{pd.Offsets, pd.Mask, sd.Offsets, sd.Start, sd.End, sd.Critique, out, pd.B, int(mode), lambda, accumulate}
		switch ver {
		case Plain:
			return d.launch("margin_kernel1", threadGrid(pd.B, 128), 128, args...)
		case Fast:
			return d.launch("margin_kernel2", pd.B, 128, args...)
		}
		return d.launch("margin_kernel3", threadGrid(pd.B, margin3Warps), 32*margin3Warps, args...)
	})
}

// GAEOn launches GAE (gae.cu) on device data: rewards, values, adv, ret
// are (T) float32. Unlike GAE it cannot check that observation tokens
// carry no reward; such a reward is skipped, as verl does.
func (d *Device) GAEOn(ver Version, pd *PackedOnDevice, rewards, values *Buffer, gamma, lambda float64, adv, ret *Buffer) error {
	if err := ver.check(Fast); err != nil {
		return err
	}
	if !(gamma >= 0 && gamma <= 1) || !(lambda >= 0 && lambda <= 1) {
		return fmt.Errorf("cuda: gae: gamma = %v, lambda = %v, want numbers in [0, 1]", gamma, lambda)
	}
	for _, c := range []error{need("rewards", rewards, pd.T, 4, false), need("values", values, pd.T, 4, false),
		need("adv", adv, pd.T, 4, false), need("ret", ret, pd.T, 4, false)} {
		if c != nil {
			return fmt.Errorf("cuda: gae: %w", c)
		}
	}
	if pd.B == 0 || pd.T == 0 {
		return nil
	}
	return d.do(func() error {
		args := []any{pd.Offsets, pd.Mask, rewards, values, adv, ret, pd.B, gamma, lambda}
		if ver == Plain {
			return d.launch("gae_kernel1", threadGrid(pd.B, 128), 128, args...)
		}
		return d.launch("gae_kernel2", threadGrid(32*pd.B, 128), 128, args...)
	})
}

// margin3Warps is MARGIN3_WARPS of margin.cu: version 3's warps per block.
const margin3Warps = 4

// GroupBaselineOn launches the group baseline (group_baseline.cu) on device
// data: scores (B) float32 and groups (B) int32 with ids in [0, B) (checked
// by GroupBaseline, not here: a bad id only puts a trajectory in a wrong
// group), perTraj (B) float32 scratch for A_b, out (T) float32. ver picks
// group_advantages_kernel1 or 2; the broadcast is the same.
func (d *Device) GroupBaselineOn(ver Version, pd *PackedOnDevice, scores, groups *Buffer, norm kernels.GroupNorm, perTraj, out *Buffer) error {
	if err := ver.check(Fast); err != nil {
		return err
	}
	for _, c := range []error{need("scores", scores, pd.B, 4, false), need("groups", groups, pd.B, 4, false),
		need("perTraj", perTraj, pd.B, 4, false), need("out", out, pd.T, 4, false)} {
		if c != nil {
			return fmt.Errorf("cuda: group baseline: %w", c)
		}
	}
	if pd.B == 0 {
		return nil
	}
	return d.do(func() error {
		args := []any{scores, groups, perTraj, pd.B, norm.Std, norm.Eps}
		var err error
		if ver == Plain {
			err = d.launch("group_advantages_kernel1", threadGrid(pd.B, 128), 128, args...)
		} else {
			err = d.launch("group_advantages_kernel2", threadGrid(32*pd.B, 128), 128, args...)
		}
		if err != nil {
			return err
		}
		if pd.T == 0 {
			return nil
		}
		return d.launch("broadcast_kernel", pd.B, 128, pd.Offsets, pd.Mask, perTraj, out, pd.B)
	})
}

// MarginCorrection is kernels.MarginCorrection on the GPU, host slices in
// and out, with its checks and errors (before anything is written).
func (d *Device) MarginCorrection(p kernels.Packed, steps kernels.Steps, mode kernels.MarginMode, lambda float64, out []float32, accumulate bool) error {
	return d.marginCorrection(V3, p, steps, mode, lambda, out, accumulate)
}

func (d *Device) marginCorrection(ver Version, p kernels.Packed, steps kernels.Steps, mode kernels.MarginMode, lambda float64, out []float32, accumulate bool) error {
	if err := kernels.CheckMarginArgs(p, steps, mode, lambda, out); err != nil {
		return err
	}
	if p.NumTokens() == 0 {
		return nil
	}
	pd, err := d.UploadPacked(p)
	if err != nil {
		return err
	}
	defer pd.Free()
	sd, err := d.UploadSteps(p, steps)
	if err != nil {
		return err
	}
	defer sd.Free()
	ob, err := Upload(d, out) // accumulate reads it; otherwise the copy is the price of simplicity
	if err != nil {
		return err
	}
	defer ob.Free()
	if err := d.MarginOn(ver, pd, sd, mode, lambda, ob, accumulate); err != nil {
		return err
	}
	return CopyFrom(out, ob)
}

// GAE is kernels.GAE on the GPU, host slices in and out, with its checks.
func (d *Device) GAE(p kernels.Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	return d.gae(Fast, p, rewards, values, gamma, lambda, adv, ret)
}

func (d *Device) gae(ver Version, p kernels.Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	if err := kernels.CheckGAEArgs(p, rewards, values, gamma, lambda, adv, ret); err != nil {
		return err
	}
	if p.NumTokens() == 0 {
		return nil
	}
	pd, err := d.UploadPacked(p)
	if err != nil {
		return err
	}
	defer pd.Free()
	var bs devBufs
	defer bs.free()
	rb, vb := upload(&bs, d, rewards), upload(&bs, d, values)
	ab, tb := bs.alloc(d, len(adv)), bs.alloc(d, len(ret))
	if bs.err != nil {
		return bs.err
	}
	if err := d.GAEOn(ver, pd, rb, vb, gamma, lambda, ab, tb); err != nil {
		return err
	}
	if err := CopyFrom(adv, ab); err != nil {
		return err
	}
	return CopyFrom(ret, tb)
}

// GroupBaseline is kernels.GroupBaseline on the GPU, host slices in and
// out, with its checks.
func (d *Device) GroupBaseline(p kernels.Packed, scores []float32, groups []int32, norm kernels.GroupNorm, out []float32) error {
	return d.groupBaseline(Fast, p, scores, groups, norm, out)
}

func (d *Device) groupBaseline(ver Version, p kernels.Packed, scores []float32, groups []int32, norm kernels.GroupNorm, out []float32) error {
	if err := kernels.CheckGroupBaselineArgs(p, scores, groups, norm, out); err != nil {
		return err
	}
	if p.NumTrajectories() == 0 {
		return nil
	}
	pd, err := d.UploadPacked(p)
	if err != nil {
		return err
	}
	defer pd.Free()
	var bs devBufs
	defer bs.free()
	sb, gb := upload(&bs, d, scores), upload(&bs, d, groups)
	ab, ob := bs.alloc(d, len(scores)), bs.alloc(d, len(out))
	if bs.err != nil {
		return bs.err
	}
	if err := d.GroupBaselineOn(ver, pd, sb, gb, norm, ab, ob); err != nil {
		return err
	}
	return CopyFrom(out, ob)
}
