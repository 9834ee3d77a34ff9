package run

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// MarkdownTable aligns its columns, the first left ones to the left and
// the rest to the right; TableOr gives none in place of a table with no
// rows.
func TestMarkdownTable(t *testing.T) {
	header := []string{"arm", "success"}
	rows := [][]string{{"vanilla", "0.5"}, {"arew", "0.75"}}
	assert.Equal(t, "| arm     | success |\n| ------- | ------: |\n| vanilla |     0.5 |\n| arew    |    0.75 |\n",
		MarkdownTable(header, 1, rows))
	assert.Equal(t, MarkdownTable(header, 1, rows), TableOr("none\n", header, 1, rows))
	assert.Equal(t, "none\n", TableOr("none\n", header, 1, nil))
	assert.Equal(t, "", TableOr("", header, 1, nil))
}
