// Package kernels holds the CPU kernels of arew on plain float32 slices:
// each as a readable reference loop (…Ref) and a fast path beside it that is
// tested against the reference and chosen at start-up from the CPU features.
package kernels
