// Package progress reports how far a long phase (SFT epochs, RL updates, a
// study's runs) has got: done of total, the time elapsed and an estimate of
// the time left.
//
// The estimate is the plain linear one: after d of n steps in elapsed time
// t, the rest takes t·(n − d)/d (unknown before the first step). It
// assumes the steps cost the same; evaluations between steps are counted in
// t, so they are spread over the steps that follow them.
//
// On a terminal (a character device) a Meter keeps one status line at the
// bottom that Tick rewrites in place ("\r", then erase to the end of the
// line); Line and Printf print permanent lines above it. When the output is
// a file or a pipe, Tick prints nothing and every permanent line is plain
// text, so logs hold no control characters (TestPlainOutputHasNoControls,
// TestTerminalRewritesTheStatusLine).
package progress
