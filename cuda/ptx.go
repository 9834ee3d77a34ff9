//go:build gpu

package cuda

import (
	"embed"
	"fmt"
)

// The PTX of every kernel file, for compute_80 and compute_90, written by
// genptx.sh (go generate) and committed; the driver JIT-compiles it for the
// GPU at hand when the module is loaded.
//
//go:embed ptx/*.ptx
var ptxFiles embed.FS

// moduleNames are the kernel files (without .cu), one PTX module each.
var moduleNames = []string{"token_logprob_forward", "token_logprob_backward", "margin", "gae", "group_baseline", "bench"}

// ptxArch is the PTX target to load for compute capability major.minor:
// compute_90 on Hopper and later, compute_80 on Ampere and Ada.
func ptxArch(major, minor int) (string, error) {
	switch {
	case major >= 9:
		return "compute_90", nil
	case major == 8:
		return "compute_80", nil
	}
	return "", fmt.Errorf("cuda: compute capability %d.%d; the kernels are built for 8.0 and later", major, minor)
}

func ptxSource(module, arch string) (string, error) {
	b, err := ptxFiles.ReadFile("ptx/" + module + "." + arch + ".ptx")
	if err != nil {
		return "", fmt.Errorf("cuda: no PTX for %s at %s: %w", module, arch, err)
	}
	return string(b), nil
}
