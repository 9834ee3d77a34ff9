package rl

import (
	"bytes"
	"encoding/json"
	"fmt"

	"arew/tasks"
)

// LockedRecipe is the data of a locked base, the one mechanism every
// setting's base is made by (docs/arew.md §8, step 2): on the setting's
// task config (Layout, which names no style), Strong demonstrations of
// the strong scripted policy under the careful style and Locked ones of
// the task's locked(QAS, QBT) demonstrator (tasks.NewLocked) under the
// hasty style, TestDemos of each held out. One SFT over both (Base); RL
// then runs under the hasty style, and the careful style shows the
// skills are still in the weights.
type LockedRecipe struct {
	Layout    json.RawMessage
	Strong    int
	Locked    int
	TestDemos int
	QAS, QBT  float64
}

// Sources are the recipe's two demonstration sources, named after their
// styles: careful (strong) first, then hasty (locked).
func (r LockedRecipe) Sources() []DemoSource {
	return []DemoSource{
		{Name: tasks.Careful, TaskConfig: r.Layout, Style: tasks.Careful, Policy: tasks.PolicySpec{Kind: "strong"},
			Demos: r.Strong, TestDemos: r.TestDemos},
		{Name: tasks.Hasty, TaskConfig: r.Layout, Style: tasks.Hasty, Policy: tasks.PolicySpec{Kind: "locked", QAS: r.QAS, QBT: r.QBT},
			Demos: r.Locked, TestDemos: r.TestDemos},
	}
}

// StyledConfig is the task config layout (a JSON object of overrides, or
// empty) with its Style field set to style; layout itself when style is
// empty. A layout that is not an object, or that sets Style already, is an
// error.
func StyledConfig(layout json.RawMessage, style string) (json.RawMessage, error) {
	if style == "" {
		return layout, nil
	}
	if err := tasks.CheckStyle(style); err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(layout)) > 0 {
		if err := json.Unmarshal(layout, &m); err != nil || m == nil {
			return nil, fmt.Errorf("task config %s: not a JSON object", layout)
		}
	}
	if _, ok := m["Style"]; ok {
		return nil, fmt.Errorf("task config %s sets Style, and the source names style %q: give one", layout, style)
	}
	m["Style"], _ = json.Marshal(style)
	return json.Marshal(m)
}
