package tasks

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Factory makes a configured task. config is a JSON object of overrides of
// the setting's documented defaults (nil or empty: the defaults); unknown
// fields and invalid values are errors.
type Factory func(config json.RawMessage) (Task, error)

var (
	registryMu sync.Mutex
	registry   = map[string]Factory{}
)

// Register makes a task setting available by name (task packages call it
// from init). A duplicate name is a programmer bug and panics.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("tasks: %q registered twice", name))
	}
	registry[name] = f
}

// New makes the named task setting with the given overrides.
func New(name string, config json.RawMessage) (Task, error) {
	registryMu.Lock()
	f, ok := registry[name]
	registryMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown task %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	t, err := f(config)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", name, err)
	}
	return t, nil
}

// Names lists the registered settings, sorted.
func Names() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DecodeConfig fills cfg (already holding the defaults) from the JSON
// overrides, rejecting unknown fields. Task factories share it.
func DecodeConfig(config json.RawMessage, cfg any) error {
	if len(strings.TrimSpace(string(config))) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(config)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("config: trailing data after the JSON object")
	}
	return nil
}
