package run

import (
	"fmt"
	"strings"
)

// MarkdownTable renders an aligned Markdown table: the first left
// columns left-aligned, the others right-aligned (numbers). Reports of
// runs and studies all go through it.
func MarkdownTable(header []string, left int, rows [][]string) string {
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)), 3)
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i < left {
				fmt.Fprintf(&b, " %s%s |", c, pad)
			} else {
				fmt.Fprintf(&b, " %s%s |", pad, c)
			}
		}
		b.WriteString("\n")
	}
	line(header)
	sep := make([]string, len(width))
	for i, w := range width {
		sep[i] = strings.Repeat("-", w)
		if i >= left {
			sep[i] = sep[i][:w-1] + ":"
		}
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// TableOr is MarkdownTable, or none in place of a table with a header and
// no rows (a report's sentence saying why, or "" to leave the table out).
func TableOr(none string, header []string, left int, rows [][]string) string {
	if len(rows) == 0 {
		return none
	}
	return MarkdownTable(header, left, rows)
}
