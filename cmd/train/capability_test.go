package main

import (
	"testing"
)

// A bad -capability command line is a usage error that writes nothing.
func TestBadCapabilityFlagsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-capability", "no-such-setting"},
		{"-capability", "mediq", "-study", "smoke"},
		{"-capability", "mediq", "-build-base", "flodial-easy-locked"},
		{"-capability", "mediq", "-act", "act-smoke"},
		{"-capability", "mediq", "-updates", "3"},
		{"-capability", "mediq", "-name", "a/b"},
	} {
		assertUsageErrorWritesNothing(t, args)
	}
}
