package act

import (
	"encoding/json"
	"fmt"
	"slices"

	"arew/model"
	"arew/rl"
	"arew/tasks/textworld"
)

// Rows of the ACT table (docs/act.md §2), in the table's order.
const (
	RowPrompting = "prompting" // π_θ0 acting directly
	RowACT       = "act"       // the critic-trained π_θ0 used as the policy
	RowIL        = "il"
	RowEE        = "early-experience"
	RowILwACT    = "il-w-act"
	RowRL        = "rl"
	RowRLwACT    = "rl-w-act"
)

// AllRows lists every row.
var AllRows = []string{RowPrompting, RowACT, RowIL, RowEE, RowILwACT, RowRL, RowRLwACT}

// Config is one pipeline run on one environment: the data, π_θ0, the
// stages and the evaluation. Every row trains on the expert pairs of the
// same Games training instances; the SFT rows share one SFT budget (IL),
// the GRPO rows the ACT and RL budgets.
type Config struct {
	Env       string          `json:"env"` // alfworld, webshop or sciworld
	EnvConfig json.RawMessage `json:"env_config,omitempty"`
	Preset    string          `json:"preset"`
	// Context is the model's context; 0 sizes it from the data.
	Context int    `json:"context"`
	Seed    uint64 `json:"seed"`
	// Games: training instances [0, Games) give the expert data.
	Games int `json:"games"`
	// HeldOut: instances [0, HeldOut) of Split give the held-out expert
	// states (offline next-action accuracy) and held-out critic examples.
	HeldOut int `json:"held_out"`
	// Split is where the held-out states and critic examples and the
	// online ID games come from: "test" (the default; also "") or "val",
	// the environment's validation split, for every choice a study makes
	// (docs/act.md §25). A "val" run plays no OOD games (ood_episodes 0):
	// no environment has an OOD validation split.
	Split     string  `json:"split,omitempty"`
	InitShare float64 `json:"init_share"` // π_θ0's share of the expert pairs
	// InitFamilies, when set, draws π_θ0's pairs (as many as InitShare
	// gives) only from the training games of these families (an
	// environment's task kinds, Env.Families: ALFWorld's task types,
	// WebShop's product categories, ScienceWorld's procedures), so π_θ0
	// reads the game and writes its commands but has never played the
	// other families (docs/act.md §22). Empty: every game.
	InitFamilies []string      `json:"init_families,omitempty"`
	Init         rl.SFTConfig  `json:"init"`
	Collect      CollectConfig `json:"collect"`
	// Choice is how the critic answers the choice prompt, for π_θ0's
	// format examples, the ACT stage and the choice accuracy: "action"
	// (the default), one of the two candidates written out after <act>
	// under their prefix tree; "slot", "1" or "2" after <choose>.
	Choice ChoiceFormat `json:"choice_format"`
	// IL is the SFT budget of IL and IL w/ ACT; Early Experience takes
	// the same number of optimiser steps (TrainEarlyExperience).
	IL rl.SFTConfig `json:"il"`
	// ACT is the critic stage; its KL anchor to the policy it starts from
	// is ACT.GRPO.Policy.KLCoef (DefaultACTStage: DefaultACTKL, k3), on
	// the critic prompt. ACT.Actor (default none) adds an SFT term on the
	// actor's own prompt at the expert pairs' states (ActorTerm).
	ACT GRPOStage `json:"act"`
	RL  GRPOStage `json:"rl"` // RL, RL w/ ACT
	// Decoder is how every row writes its actions (ParseDecoding):
	// "trie" (the default; also ""), only the commands listed at the
	// state; "grammar", any command of the environment's grammar; "free",
	// any tokens. It holds for the evaluation, the next-action accuracy,
	// the sampling of D_critic and the RL stage's rollouts; with "trie" or
	// "grammar" every row is also played free on the ID games, for the
	// repeated-failure count (RowResult.FreeID).
	Decoder string `json:"decoder"`
	// Episodes and OODEpisodes: online evaluation on the first instances
	// of Split (Test by default) and of TestOOD (0: none).
	Episodes    int      `json:"episodes"`
	OODEpisodes int      `json:"ood_episodes"`
	Rows        []string `json:"rows"`
	// Dir receives the datasets (JSONL), the checkpoints (safetensors) and
	// report.json; empty: nothing is written.
	Dir string `json:"dir"`
	// CriticFrom reads D_critic from this JSONL file instead of sampling it
	// from this run's π_θ0 (cross-size: data collected with another preset).
	CriticFrom string `json:"critic_from,omitempty"`
}

// DefaultConfig is a small alfworld run with the tiny preset; the critic
// answers in the action channel; the ACT stage has the paper's shaping and
// a KL anchor (DefaultACTStage), the RL stage R_acc alone (AccuracyOnly).
func DefaultConfig() Config {
	init := rl.DefaultSFTConfig()
	init.Epochs, init.Optim.LR = 10, 3e-3
	il := rl.DefaultSFTConfig()
	il.Epochs, il.Optim.LR = 10, 3e-3
	rlStage := DefaultGRPOStage()
	rlStage.Shaping = AccuracyOnly()
	return Config{Env: "alfworld", Preset: "tiny", Seed: 1, Games: 100, HeldOut: 20, InitShare: 0.1,
		Init: init, Collect: DefaultCollect(), Choice: ChoiceAction, IL: il, ACT: DefaultACTStage(), RL: rlStage,
		Decoder: DecodeTrie.String(), Episodes: 20, OODEpisodes: 20, Rows: AllRows}
}

// UnmarshalJSON decodes c afresh, refusing unknown fields. A config
// without choice_format has the slot format: it was written before the
// setting existed, when the critic answered with the slot only.
func (c *Config) UnmarshalJSON(data []byte) error {
	type fields Config // without this method
	f := fields{Choice: ChoiceSlot}
	if err := rl.DecodeStrict(data, &f); err != nil {
		return err
	}
	*c = Config(f)
	return nil
}

// Validate reports the first bad field (the stages' own configs are
// checked when they start).
func (c Config) Validate() error {
	if _, ok := model.Presets[c.Preset]; !ok {
		return fmt.Errorf("act: unknown model preset %q", c.Preset)
	}
	if c.Context < 0 || c.Games < 1 || c.HeldOut < 0 || c.Episodes < 0 || c.OODEpisodes < 0 {
		return fmt.Errorf("act: need context ≥ 0, games ≥ 1, held_out, episodes, ood_episodes ≥ 0; got %d, %d, %d, %d, %d",
			c.Context, c.Games, c.HeldOut, c.Episodes, c.OODEpisodes)
	}
	switch c.Split {
	case "", "test":
	case "val":
		if c.OODEpisodes > 0 {
			return fmt.Errorf("act: split val plays no OOD games (there is no OOD validation split): set ood_episodes to 0, got %d", c.OODEpisodes)
		}
	default:
		return fmt.Errorf("act: split must be test or val, got %q", c.Split)
	}
	if !(c.InitShare > 0 && c.InitShare <= 1) {
		return fmt.Errorf("act: init_share must lie in (0, 1], got %v", c.InitShare)
	}
	for i, f := range c.InitFamilies {
		if f == "" || slices.Contains(c.InitFamilies[:i], f) {
			return fmt.Errorf("act: init_families must name distinct families, got %q", c.InitFamilies)
		}
	}
	if err := c.Choice.Validate(); err != nil {
		return fmt.Errorf("act: %w", err)
	}
	if _, err := ParseDecoding(c.Decoder); err != nil {
		return fmt.Errorf("act: %w", err)
	}
	if err := c.Collect.Validate(); err != nil {
		return fmt.Errorf("act: %w", err)
	}
	for _, s := range []GRPOStage{c.ACT, c.RL} {
		if err := s.Shaping.Validate(); err != nil {
			return fmt.Errorf("act: %w", err)
		}
	}
	if c.ACT.Actor != nil {
		if err := c.ACT.Actor.Validate(); err != nil {
			return fmt.Errorf("act: %w", err)
		}
	}
	if c.RL.Actor != nil {
		return fmt.Errorf("act: the actor term is the ACT stage's only (rl.actor must be absent)")
	}
	for _, r := range c.Rows {
		if !slices.Contains(AllRows, r) {
			return fmt.Errorf("act: unknown row %q (known: %v)", r, AllRows)
		}
	}
	return nil
}

// heldSplit is the split that Split names: textworld.Val for "val", else
// textworld.Test.
func (c Config) heldSplit() textworld.Split {
	if c.Split == "val" {
		return textworld.Val
	}
	return textworld.Test
}

// needs reports whether row r, or a row built on it, is requested.
func (c Config) needs(r string) bool {
	for _, x := range c.Rows {
		if x == r || (r == RowACT && (x == RowILwACT || x == RowRLwACT)) {
			return true
		}
	}
	return false
}
