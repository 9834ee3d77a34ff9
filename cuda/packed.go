//go:build gpu

package cuda

import (
	"fmt"

	"arew/kernels"
)

// PackedOnDevice is a kernels.Packed copied to the device after it was
// validated: the only way to make one is UploadPacked, so the advantage
// kernels never see a broken layout.
type PackedOnDevice struct {
	Offsets *Buffer // (B+1) int32
	Mask    *Buffer // (T) uint8
	B, T    int
}

// UploadPacked validates p and copies it to the device.
func (d *Device) UploadPacked(p kernels.Packed) (*PackedOnDevice, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	var bs devBufs
	pd := &PackedOnDevice{B: p.NumTrajectories(), T: p.NumTokens()}
	pd.Offsets = upload(&bs, d, p.Offsets)
	pd.Mask = upload(&bs, d, p.Mask)
	if bs.err != nil {
		bs.free()
		return nil, bs.err
	}
	return pd, nil
}

// Free releases the layout's buffers.
func (pd *PackedOnDevice) Free() { freeAll(pd.Offsets, pd.Mask) }

// StepsOnDevice is a kernels.Steps copied to the device after it was
// validated against its batch (UploadSteps).
type StepsOnDevice struct {
	Offsets, Start, End, Critique *Buffer
	S                             int
	b                             int // the B it was validated for
}

// UploadSteps validates steps against p and copies them to the device.
func (d *Device) UploadSteps(p kernels.Packed, steps kernels.Steps) (*StepsOnDevice, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	if err := steps.Validate(p); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	var bs devBufs
	sd := &StepsOnDevice{S: steps.NumSteps(), b: p.NumTrajectories()}
	sd.Offsets = upload(&bs, d, steps.Offsets)
	sd.Start = upload(&bs, d, steps.Start)
	sd.End = upload(&bs, d, steps.End)
	sd.Critique = upload(&bs, d, steps.Critique)
	if bs.err != nil {
		bs.free()
		return nil, bs.err
	}
	return sd, nil
}

// Free releases the steps' buffers.
func (sd *StepsOnDevice) Free() { freeAll(sd.Offsets, sd.Start, sd.End, sd.Critique) }
