// Package engine is arew's tensor engine: the glue to gorgonia (a parameter
// store whose memory the graph, the rollout forward and the optimiser share),
// custom differentiable ops backed by package kernels, and checkpoints.
package engine
