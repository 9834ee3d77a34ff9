package run

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// PresetNames lists the names of a table of presets (functions that build
// a config), sorted: what a usage message or an error lists.
func PresetNames[T any](presets map[string]func() T) []string {
	return slices.Sorted(maps.Keys(presets))
}

// LookupPreset builds the named preset of a table; an unknown name is an
// error that says which names exist (kind names the table: "study").
func LookupPreset[T any](kind string, presets map[string]func() T, name string) (T, error) {
	f, ok := presets[name]
	if !ok {
		var zero T
		return zero, fmt.Errorf("unknown %s preset %q (known: %s)", kind, name, strings.Join(PresetNames(presets), ", "))
	}
	return f(), nil
}
