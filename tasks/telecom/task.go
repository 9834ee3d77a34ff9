package telecom

import (
	"fmt"
	"sync"

	"arew/tasks"
)

// Task is a configured telecom setting (solo or dual). It implements
// tasks.Task.
type Task struct {
	name    string
	cfg     Config
	setting setting
	prior   prior
	vocab   *tasks.Vocab // vocabulary, with the style tokens under a style
	style   tasks.Token  // the prompt's style token (0: none)

	constOnce sync.Once
	constSeq  []op // the best constant sequence on the train split, for Scripted("constant")
}

// Instance-generation streams (tasks.InstanceRNG): one per component.
const (
	streamFaults = 1
	streamLine   = 2
)

// turnTokens bounds the agent's tokens per turn, EOT included: the longest
// valid action is two tokens (maxAction), so one more lets an overlong turn
// be seen and judged malformed.
const (
	turnTokens = 4
	maxAction  = 2
)

// maxReply is the longest reply (line and settings: three tokens).
const maxReply = 3

// promptLen: <bos> setting complaint line header, without a style.
const promptLen = 5

// maxTurnLen bounds one turn's tokens: a valid action, EOT, a reply and the
// next header (7); a malformed turn is shorter (3 tokens, EOT, invalid,
// header: 6).
const maxTurnLen = max(maxAction+1+maxReply+1, turnTokens+1+1)

func newTask(name string, s setting, cfg Config) (*Task, error) {
	enabled, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	v := vocabulary
	if cfg.Style != "" {
		v = tasks.NewVocab(tasks.StyleGroups(cfg.Style, vocabGroups()...)...)
	}
	return &Task{name: name, cfg: cfg, setting: s, prior: newPrior(enabled, cfg.PTwo),
		vocab: v, style: tasks.StyleToken(v, cfg.Style)}, nil
}

// New makes a telecom task directly (tasks.New is the usual way).
func New(s string, cfg Config) (*Task, error) {
	switch s {
	case "solo":
		return newTask("telecom-solo", solo, cfg)
	case "dual":
		return newTask("telecom-dual", dual, cfg)
	}
	return nil, fmt.Errorf("telecom: setting must be solo or dual, got %q", s)
}

func (t *Task) Name() string        { return t.name }
func (t *Task) Vocab() *tasks.Vocab { return t.vocab }
func (t *Task) Config() Config      { return t.cfg }

// MaxTokens bounds an episode's token stream: the prompt, then at most
// maxTurnLen tokens per turn (agent tokens with EOT, reply, next header).
func (t *Task) MaxTokens() int {
	return promptLen + tasks.StyleLen(t.cfg.Style) + t.cfg.MaxTurns*maxTurnLen
}

// instance draws the hidden fault configuration and the customer's line.
func (t *Task) instance(split tasks.Split, index int) (config, int, error) {
	fr, err := tasks.InstanceRNG(t.cfg.Seed, split, index, streamFaults)
	if err != nil {
		return 0, 0, err
	}
	lr, err := tasks.InstanceRNG(t.cfg.Seed, split, index, streamLine)
	if err != nil {
		return 0, 0, err
	}
	return t.prior.sample(fr.Float64()), lr.IntN(t.cfg.Lines), nil
}

// NewEpisode makes instance index of split.
func (t *Task) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	c, line, err := t.instance(split, index)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return newEpisode(t, c, line), nil
}

// Scripted returns a scripted policy: "random", "weak" (QAS used, QBT
// ignored: there is no belief turn), "strong", "constant" or "locked"
// (locked.go).
func (t *Task) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("telecom: %w", err)
	}
	switch spec.Kind {
	case "random":
		return randomPolicy{}, nil
	case "weak":
		return weakPolicy{qas: spec.QAS}, nil
	case "strong":
		return strongPolicy{}, nil
	case "constant":
		return constantPolicy{seq: t.constantSequence()}, nil
	case "locked":
		seq := t.constantSequence()
		return tasks.NewLocked(spec, func(ep tasks.Episode) (tasks.LockedMoves, error) {
			e, err := asEpisode(ep)
			return lockedMoves{e: e, seq: seq}, err
		})
	}
	return nil, fmt.Errorf("unknown policy kind %q (random, weak, strong, constant, locked)", spec.Kind)
}

// constantSequence is the best constant sequence on the train split, found
// once.
func (t *Task) constantSequence() []op {
	t.constOnce.Do(func() {
		t.constSeq, _ = t.bestConstant(tasks.Train, constantSearchN)
	})
	return t.constSeq
}

// constantSearchN is how many train instances pick the constant policy's sequence.
const constantSearchN = 1000

// BestConstant searches every fixed action sequence (see constant.go) for the
// one that, ignoring all replies, succeeds most often on the first n
// instances of split.
func (t *Task) BestConstant(split tasks.Split, n int) (string, float64, error) {
	if n < 1 {
		return "", 0, fmt.Errorf("%s: best constant needs n ≥ 1, got %d", t.name, n)
	}
	if _, err := tasks.InstanceSeed(split, n-1); err != nil {
		return "", 0, fmt.Errorf("%s: %w", t.name, err)
	}
	seq, succ := t.bestConstant(split, n)
	return t.describe(seq), succ, nil
}
