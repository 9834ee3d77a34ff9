package alfworld

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSplitBounds: split sizes are bounded, as in webshop and sciworld (a
// world builds every training game's fingerprint).
func TestSplitBounds(t *testing.T) {
	for _, mut := range []func(*Config){
		func(c *Config) { c.Train = 100001 },
		func(c *Config) { c.Test = 100001 },
		func(c *Config) { c.TestOOD = 100001 },
	} {
		c := DefaultConfig()
		mut(&c)
		assert.Error(t, c.Validate())
	}
	c := DefaultConfig()
	c.Train, c.Test, c.TestOOD = 100000, 100000, 100000
	assert.NoError(t, c.Validate())
}
