package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBadFlagsAreErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "0"},
		{"-qas", "1.5"},
		{"-split", "dev"},
		{"-tasks", "no-such-task"},
		{"-bogus"},
		{"-tasks", "flodial-easy", "-config", "{not json"},
		{"-tasks", "flodial-easy", "-config", `{"NoSuchField": 1}`},
	} {
		var out bytes.Buffer
		assert.Error(t, run(args, &out), "%v", args)
	}
}
