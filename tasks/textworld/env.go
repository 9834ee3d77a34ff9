package textworld

import "arew/tasks"

// Env is one episode of a text environment. The agent reads the goal, the
// latest observation and the listed admissible actions, and answers with an
// action as tokens of the environment's vocabulary (no <eot>). Everything an
// agent can generate is accepted: a command that does not parse or does not
// apply gets the observation NothingHappens, changes nothing but the step
// count, and still costs a step.
type Env interface {
	Vocab() *tasks.Vocab
	// Goal is the task description (an instruction).
	Goal() []tasks.Token
	// Observation is the latest observation: the initial one before any
	// step, then what the last Step returned.
	Observation() []tasks.Token
	// Admissible lists actions that apply now, distinct, in a fixed order.
	// The expert's action is always among them.
	Admissible() [][]tasks.Token
	// IsAdmissible reports whether action applies now: true for every
	// listed action and, where an environment has free-text actions
	// (webshop's search), for the unlisted well-formed ones too.
	IsAdmissible(action []tasks.Token) bool
	// Step applies action and returns the new observation. It fails only
	// once the episode is Done.
	Step(action []tasks.Token) ([]tasks.Token, error)
	// Done: the goal is reached, the episode ended (webshop: Buy Now), or
	// MaxSteps steps were taken.
	Done() bool
	Steps() int
	MaxSteps() int
	// Reward is the outcome: 0 or 1 (alfworld, sciworld), the attribute
	// reward in [0, 1] (webshop); 0 until the end.
	Reward() float64
	Success() bool
	// Expert is the planner's next action from the current state, whatever
	// led there; nil once Done.
	Expert() []tasks.Token
	// Clone is an independent copy at the same state (Early Experience runs
	// the expert and the alternatives from one state).
	Clone() Env
}
