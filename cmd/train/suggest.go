package main

import (
	"flag"
	"strings"
)

// nearestFlag is the defined flag closest to name by edit distance (ties:
// the first in name order), or "" when none is within a third of the
// longer name's length (at least 2).
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestD := "", 1<<30
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	limit := max(2, max(len(name), len(best))/3)
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes: flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// undefinedFlag is the name in the flag package's "flag provided but not
// defined: -name" error, or "".
func undefinedFlag(err error) string {
	const prefix = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(msg, prefix), "-")
}
