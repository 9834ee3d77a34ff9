// Package model is arew's transformer policy: a GPT-2-style decoder (token
// and learned position embeddings, pre-LN blocks of causal multi-head
// self-attention and a GELU MLP, a final LayerNorm, an untied LM head) with
// an optional value head, defined twice over the same weight memory: as a
// gorgonia graph for training, and as a lean KV-cache forward in plain Go
// for rollouts.
package model
