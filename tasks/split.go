package tasks

import (
	"fmt"
	"math/rand/v2"
)

// Split names a fixed set of task instances. Train feeds SFT and RL
// rollouts; Val is for every in-training evaluation and every tuning or
// selection rule; Test is read only for a study's final numbers.
type Split uint8

const (
	Train Split = iota
	Test
	Val
)

func (s Split) String() string {
	switch s {
	case Train:
		return "train"
	case Test:
		return "test"
	case Val:
		return "val"
	}
	return fmt.Sprintf("split(%d)", uint8(s))
}

// MarshalText writes "train", "val" or "test", so configs read naturally.
func (s Split) MarshalText() ([]byte, error) {
	if s != Train && s != Test && s != Val {
		return nil, fmt.Errorf("unknown split %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads "train", "val" or "test".
func (s *Split) UnmarshalText(b []byte) error {
	switch string(b) {
	case "train":
		*s = Train
	case "val":
		*s = Val
	case "test":
		*s = Test
	default:
		return fmt.Errorf("split must be train, val or test, got %q", b)
	}
	return nil
}

// MaxInstances bounds the index of an instance within a split. Train, test
// and val instances come from disjoint seed ranges: [0, MaxInstances),
// [MaxInstances, 2·MaxInstances) and [2·MaxInstances, 3·MaxInstances), so no
// instance belongs to two splits. (Val came last, so the train and test
// instances kept their seeds.)
const MaxInstances = 1 << 40

// InstanceSeed is the seed of instance index of split; every random choice
// that makes the instance (hidden state, tables, simulated user) derives from
// it and nothing else.
func InstanceSeed(split Split, index int) (uint64, error) {
	if index < 0 || index >= MaxInstances {
		return 0, fmt.Errorf("instance index %d outside [0, %d)", index, MaxInstances)
	}
	switch split {
	case Train:
		return uint64(index), nil
	case Test:
		return MaxInstances + uint64(index), nil
	case Val:
		return 2*MaxInstances + uint64(index), nil
	}
	return 0, fmt.Errorf("unknown split %v", split)
}

// InstanceRNG is a generator for one component (stream) of an instance, so
// adding a random draw to one component never changes another's draws.
func InstanceRNG(taskSeed uint64, split Split, index int, stream uint64) (*rand.Rand, error) {
	p := new(rand.PCG)
	if err := SeedInstance(p, taskSeed, split, index, stream); err != nil {
		return nil, err
	}
	return rand.New(p), nil
}

// SeedInstance seeds p as InstanceRNG seeds its generator, so a generator
// over p draws exactly InstanceRNG's numbers: for an episode that makes
// instance after instance in the same memory (TestSeedInstanceMatchesInstanceRNG).
func SeedInstance(p *rand.PCG, taskSeed uint64, split Split, index int, stream uint64) error {
	s, err := InstanceSeed(split, index)
	if err != nil {
		return err
	}
	p.Seed(taskSeed^(s*0x9E3779B97F4A7C15), stream)
	return nil
}
