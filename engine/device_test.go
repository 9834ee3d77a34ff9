package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDevice(t *testing.T) {
	for _, c := range []struct {
		name string
		want Device
		err  string
	}{{"cpu", CPU, ""}, {"cuda", CUDA, ""}, {"gpu", 0, "unknown device"}, {"", 0, "unknown device"}} {
		d, err := ParseDevice(c.name)
		if c.err != "" {
			assert.ErrorContains(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, d)
		assert.Equal(t, c.name, d.String())
	}
	assert.Equal(t, "Device(7)", Device(7).String())
}

func TestSetDeviceRejectsUnknown(t *testing.T) {
	assert.ErrorContains(t, SetDevice(Device(7)), "unknown device")
	assert.Equal(t, CPU, CurrentDevice())
	require.NoError(t, SetDevice(CPU))
	assert.Equal(t, CPU, CurrentDevice())
}
