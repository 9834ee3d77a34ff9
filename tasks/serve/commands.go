package serve

import (
	"fmt"
	"net/http"
	"strings"

	"arew/tasks"
	"arew/tasks/textworld"
)

// The text environments (package textworld: alfworld, webshop, sciworld)
// speak another protocol than the tasks: a command per step, answered by an
// observation, until the goal, the end or the step cap, with the outcome as
// the reward and no critiques. They are served on the same endpoints: the
// replies keep their shape (observation, reward, done, info), the turn's
// kind is "command", the observation lists the commands that apply, and
// info and /state report commands rather than judged moves.

// KindCommand is the turn kind of a text environment's step.
const KindCommand = "command"

// CommandInfo is the info of /step on a text environment.
type CommandInfo struct {
	Turn int    `json:"turn"` // the step's index
	Kind string `json:"kind"` // "command"
	// Move is the command as read (its words, space-separated); empty when
	// the text did not read.
	Move string `json:"move"`
	// Admissible: the command applied (it was listed, or it is a search
	// on webshop's search page); otherwise the reply is "nothing happens ."
	// and only the step count changed.
	Admissible bool `json:"admissible"`
	// Malformed: the text did not read as words of the environment
	// (ParseError says why); the step is used up as an inadmissible one.
	Malformed  bool   `json:"malformed"`
	ParseError string `json:"parse_error,omitempty"`
	// Repeat: the same command as the step before, which had got "nothing
	// happens ." (the ACT paper's repeated failure).
	Repeat   bool             `json:"repeat"`
	Tokens   []int32          `json:"tokens"` // the command as token ids
	Measures *CommandMeasures `json:"measures,omitempty"`
}

// CommandMeasures are a text environment's episode measures.
type CommandMeasures struct {
	Reward  float64 `json:"reward"`  // the outcome (webshop: the attribute reward in [0, 1])
	Success bool    `json:"success"` // the goal reached (webshop: reward 1)
	Steps   int     `json:"steps"`
	// Malformed counts the texts that did not read; Inadmissible the steps
	// whose command did not apply, the malformed ones included.
	Malformed        int `json:"malformed"`
	Inadmissible     int `json:"inadmissible"`
	RepeatedFailures int `json:"repeated_failures"` // steps with Repeat
}

// CommandRecord is one step of a text environment in /state.
type CommandRecord struct {
	Turn       int    `json:"turn"`
	Kind       string `json:"kind"`
	Move       string `json:"move"`
	Admissible bool   `json:"admissible"`
	Malformed  bool   `json:"malformed"`
	Repeat     bool   `json:"repeat"`
}

// CommandState is a text environment's /state.
type CommandState = EpisodeState[CommandRecord, CommandMeasures]

// commandEpisode is a live text-environment episode: the environment and
// the record of its steps.
type commandEpisode struct {
	env     textworld.Env
	vocab   *tasks.Vocab
	nothing []tasks.Token // "nothing happens ."
	steps   []CommandRecord
	// last is the previous command played and whether it got "nothing
	// happens .", for Repeat.
	last        []tasks.Token
	lastNothing bool
	malformed   int
	inadmiss    int
	repeats     int
}

// startCommands makes instance index of split of a text environment.
func startCommands(w textworld.World, split string, index int64) (*commandEpisode, error) {
	sp, err := textworld.ParseSplit(split)
	if err != nil {
		return nil, err
	}
	env, err := w.Env(sp)(int(index))
	if err != nil {
		return nil, err
	}
	v := w.Vocab()
	return &commandEpisode{env: env, vocab: v, nothing: v.Encode(textworld.NothingHappens...)}, nil
}

// turn is the next step, or nil once the episode is over.
func (c *commandEpisode) turn() *TurnInfo {
	if c.env.Done() {
		return nil
	}
	return &TurnInfo{Index: c.env.Steps(), Kind: KindCommand, MaxWords: textworld.MaxCommandWords}
}

// observation renders what the agent reads: the goal first (at the reset),
// the latest observation, then, while the episode runs, the commands that
// apply and the prompt for the next one.
func (c *commandEpisode) observation(first bool) Observation {
	var b strings.Builder
	if first {
		b.WriteString(c.vocab.Decode(c.env.Goal()))
		b.WriteByte('\n')
	}
	b.WriteString(c.vocab.Decode(c.env.Observation()))
	obs := Observation{Turn: c.turn()}
	if !c.env.Done() {
		adm := c.env.Admissible()
		obs.Admissible = make([]string, len(adm))
		b.WriteString("\n\nCommands that apply now:")
		for i, a := range adm {
			obs.Admissible[i] = c.vocab.Decode(a)
			b.WriteString("\n- " + obs.Admissible[i])
		}
		fmt.Fprintf(&b, "\nYour move: one command (step %d of %d).", c.env.Steps()+1, c.env.MaxSteps())
	}
	obs.Text = b.String()
	return obs
}

// step reads text as a command and plays it.
func (c *commandEpisode) step(text string) (CommandInfo, error) {
	cmd := textworld.ReadCommand(c.vocab, text)
	info := CommandInfo{Turn: c.env.Steps(), Kind: KindCommand, Malformed: cmd.Malformed, ParseError: cmd.Reason,
		Admissible: c.env.IsAdmissible(cmd.Tokens), Tokens: make([]int32, len(cmd.Tokens))}
	for i, t := range cmd.Tokens {
		info.Tokens[i] = int32(t)
	}
	if !cmd.Malformed {
		info.Move = c.vocab.Decode(cmd.Tokens)
	}
	info.Repeat = c.lastNothing && textworld.Equal(c.last, cmd.Tokens)
	obs, err := c.env.Step(cmd.Tokens)
	if err != nil {
		return CommandInfo{}, err
	}
	c.last, c.lastNothing = cmd.Tokens, textworld.Equal(obs, c.nothing)
	c.malformed += b2i(info.Malformed)
	c.inadmiss += b2i(!info.Admissible)
	c.repeats += b2i(info.Repeat)
	c.steps = append(c.steps, CommandRecord{Turn: info.Turn, Kind: KindCommand, Move: info.Move,
		Admissible: info.Admissible, Malformed: info.Malformed, Repeat: info.Repeat})
	if c.env.Done() {
		info.Measures = c.measures()
	}
	return info, nil
}

func (c *commandEpisode) measures() *CommandMeasures {
	return &CommandMeasures{Reward: c.env.Reward(), Success: c.env.Success(), Steps: c.env.Steps(),
		Malformed: c.malformed, Inadmissible: c.inadmiss, RepeatedFailures: c.repeats}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stepCommand plays one step of l, a text environment's episode whose lock
// the caller holds.
func (s *Server) stepCommand(l *live, text string) (int, any, error) {
	info, err := l.cmd.step(text)
	if err != nil {
		return http.StatusInternalServerError, nil, err
	}
	res := Result{EpisodeID: l.id, Observation: l.cmd.observation(false), Done: l.cmd.env.Done(), Info: info}
	if res.Done {
		s.store.markDone(l)
		res.Reward = info.Measures.Reward
	}
	return http.StatusOK, res, nil
}
