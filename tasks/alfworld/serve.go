package alfworld

import (
	"fmt"

	"arew/tasks/textworld"
)

// The environment is served as "alfworld" (package tasks/serve): its
// configuration is FromJSON's, within textworld's serving bounds and with
// at most maxServedLayouts layouts.
func init() {
	textworld.Serve("alfworld", DefaultConfig, func(c Config) error {
		if err := textworld.ServeBounds(c.Sizes(), c.MaxSteps); err != nil {
			return err
		}
		if c.Layouts > maxServedLayouts {
			return fmt.Errorf("Layouts must stay at most %d when served, got %d", maxServedLayouts, c.Layouts)
		}
		return nil
	}, New)
}

const maxServedLayouts = 400

// Rules is the environment's part of a served episode's system prompt.
func (w *World) Rules() string {
	return fmt.Sprintf(`You are in a household with numbered receptacles (cabinet 1, fridge 1, countertop 2, ...) and numbered objects in them. Carry out the task given at the start by typing one command per step. You carry at most one object; openable receptacles start closed.

Commands (R a receptacle, O an object, each with its number):
  look | inventory | go to R | open R | close R | take O from R | put O in R | put O on R
  clean O with R | heat O with R | cool O with R | use O | examine O | examine R
Clean at a sinkbasin, heat with a microwave, cool with a fridge, use a desklamp to look at what you hold. Every observation lists the commands that apply now; any other command is answered "nothing happens ." and changes nothing but the step count.

The episode ends when the task is done (reward 1) or after %d steps (reward 0).`, w.cfg.MaxSteps)
}
