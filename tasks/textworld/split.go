package textworld

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Split names a fixed set of instances of an environment. Train, Test and
// Val are tasks.Train, tasks.Test and tasks.Val (the same disjoint seed
// ranges); TestOOD is a second test split drawn from the Test seed range on
// its own streams and generated out of distribution by the environments
// that have one. Val is drawn as Test is and is for every choice a study
// makes (a recipe, a setting), so that Test is read only for final numbers.
type Split uint8

const (
	Train Split = iota
	Test
	TestOOD
	Val
)

func (s Split) String() string {
	switch s {
	case Train:
		return "train"
	case Test:
		return "test"
	case TestOOD:
		return "test-ood"
	case Val:
		return "val"
	}
	return fmt.Sprintf("split(%d)", uint8(s))
}

// ParseSplit reads "train", "val", "test" or "test-ood".
func ParseSplit(s string) (Split, error) {
	for _, sp := range []Split{Train, Val, Test, TestOOD} {
		if sp.String() == s {
			return sp, nil
		}
	}
	return 0, fmt.Errorf("split must be train, val, test or test-ood, got %q", s)
}

// oodStreams shifts the stream numbers of TestOOD so that its draws never
// coincide with Test's although both use the Test seed range.
const oodStreams = 1 << 32

// RNG is the generator of one component (stream) of instance index of
// split, built on tasks.InstanceRNG; worldSeed is the environment's seed.
func RNG(worldSeed uint64, split Split, index int, stream uint64) (*rand.Rand, error) {
	switch split {
	case Train:
		return tasks.InstanceRNG(worldSeed, tasks.Train, index, stream)
	case Test:
		return tasks.InstanceRNG(worldSeed, tasks.Test, index, stream)
	case TestOOD:
		return tasks.InstanceRNG(worldSeed, tasks.Test, index, stream+oodStreams)
	case Val:
		return tasks.InstanceRNG(worldSeed, tasks.Val, index, stream)
	}
	return nil, fmt.Errorf("unknown split %v", split)
}

// Draw is RNG for instance index of split once Check accepts it.
func (z Sizes) Draw(worldSeed uint64, split Split, index int, stream uint64) (*rand.Rand, error) {
	if err := z.Check(split, index); err != nil {
		return nil, err
	}
	return RNG(worldSeed, split, index, stream)
}

// Sizes fixes how many instances each split holds.
type Sizes struct {
	Train, Test, TestOOD, Val int
}

// Size is how many instances split holds (0 for an unknown split).
func (z Sizes) Size(split Split) int {
	switch split {
	case Train:
		return z.Train
	case Test:
		return z.Test
	case TestOOD:
		return z.TestOOD
	case Val:
		return z.Val
	}
	return 0
}

// Check validates index against the size of split (a size of 0 means the
// environment has no such split).
func (z Sizes) Check(split Split, index int) error {
	n := z.Size(split)
	switch {
	case split > Val:
		return fmt.Errorf("unknown split %v", split)
	case n == 0:
		return fmt.Errorf("this environment has no %v split", split)
	case index < 0 || index >= n:
		return fmt.Errorf("instance %d outside the %v split [0, %d)", index, split, n)
	}
	return nil
}

// Validate rejects negative sizes and an empty train or test split.
func (z Sizes) Validate() error {
	if z.Train <= 0 || z.Test <= 0 || z.TestOOD < 0 || z.Val < 0 {
		return fmt.Errorf("split sizes train %d, test %d, test-ood %d, val %d: train and test must be positive, test-ood and val non-negative",
			z.Train, z.Test, z.TestOOD, z.Val)
	}
	if z.Train >= tasks.MaxInstances || z.Test >= tasks.MaxInstances || z.TestOOD >= tasks.MaxInstances || z.Val >= tasks.MaxInstances {
		return fmt.Errorf("split sizes must stay below %d", tasks.MaxInstances)
	}
	return nil
}
