package sciworld

import (
	"fmt"

	"arew/tasks/textworld"
)

// The environment is served as "sciworld" (package tasks/serve): its
// configuration is FromJSON's, within textworld's serving bounds.
func init() {
	textworld.Serve("sciworld", DefaultConfig, func(c Config) error { return textworld.ServeBounds(c.Sizes(), c.MaxSteps) }, New)
}

// Rules is the environment's part of a served episode's system prompt.
func (w *World) Rules() string {
	return fmt.Sprintf(`You are in a small lab of five rooms (the hallway joins the kitchen, the workshop, the greenhouse and the studio) and carry out the procedure the task describes, by typing one action per step. You see only the room you are in.

Actions (X, Y the names of things):
  look around | inventory | wait | go to ROOM | open X | close X | activate X | deactivate X
  pick up X | move X to Y | pour X into Y | focus on X | mix X
"wait" lets time pass: things on an active stove heat, seeds with water grow. Every observation lists the actions that apply now; any other action is answered "nothing happens ." and changes nothing but the step count.

Focus on the task's object when the task says so: focusing on anything else, or filing an object in the wrong box, ends the episode as a failure. The episode ends with reward 1 when the procedure is done, else with reward 0 after a failure or %d steps.`, w.cfg.MaxSteps)
}
