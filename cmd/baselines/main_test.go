package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"-locked", "0,1.5"},
		{"-locked", "x"},
	} {
		var out bytes.Buffer
		assert.Error(t, run(args, &out), "%v", args)
	}
}

// A task with counts of its own (telecom) gets them printed after the
// table, per policy; one without (flodial) does not.
func TestTheTasksOwnCounts(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"-tasks", "telecom-dual,flodial-easy", "-n", "3", "-locked", "0"}, &out))
	assert.Contains(t, out.String(), "telecom-dual  scripted locked(0.00,0.00):")
	assert.Contains(t, out.String(), "telecom-dual  scripted strong:  message_turns ")
	assert.Contains(t, out.String(), "tool_turn_ratio ")
	assert.NotContains(t, out.String(), "flodial-easy  scripted strong:")
}
