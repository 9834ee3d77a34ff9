package act

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks/textworld"
)

// SFTEpoch is the record of one SFT epoch in a report.
type SFTEpoch struct {
	Epoch     int     `json:"epoch"`
	Steps     int     `json:"steps"`
	TrainLoss float64 `json:"train_loss"`
	GradNorm  float64 `json:"grad_norm"`
	Seconds   float64 `json:"seconds"`
}

func sftEpochs(ms []rl.SFTMetrics) []SFTEpoch {
	out := make([]SFTEpoch, len(ms))
	for i, m := range ms {
		out[i] = SFTEpoch{Epoch: m.Epoch, Steps: m.Steps, TrainLoss: m.TrainLoss, GradNorm: m.GradNorm, Seconds: m.Seconds}
	}
	return out
}

// RowResult is one row of the table on this run's environment.
type RowResult struct {
	Row string  `json:"row"`
	ID  *Online `json:"id,omitempty"`  // online, Test split
	OOD *Online `json:"ood,omitempty"` // online, TestOOD split
	// FreeID is the ID evaluation decoded free, when the run's decoder is
	// not: the repeated-failure count needs a policy that can repeat an
	// inapplicable command, which the trie cannot write.
	FreeID *Online `json:"id_free,omitempty"`
	// IDSeen and IDUnseen split the ID games by family when π_θ0 trained
	// on some families only (Config.InitFamilies): those it played, and
	// the others.
	IDSeen   *Online `json:"id_seen,omitempty"`
	IDUnseen *Online `json:"id_unseen,omitempty"`
	// Offline is next-action accuracy on the held-out expert states;
	// OfflineSeen and OfflineUnseen split it as IDSeen and IDUnseen do.
	Offline       *float64 `json:"offline,omitempty"`
	OfflineSeen   *float64 `json:"offline_seen,omitempty"`
	OfflineUnseen *float64 `json:"offline_unseen,omitempty"`
	// Choice is the greedy critic accuracy on held-out critic examples.
	Choice          *float64 `json:"choice,omitempty"`
	ChoiceMalformed *float64 `json:"choice_malformed,omitempty"`
	TrainSeconds    float64  `json:"train_seconds"` // this row's own stage
	EvalSeconds     float64  `json:"eval_seconds"`
	Checkpoint      string   `json:"checkpoint,omitempty"`
}

// Report is everything a run measured.
type Report struct {
	Config        Config                  `json:"config"`
	Model         model.Config            `json:"model"`
	Pairs         int                     `json:"pairs"`
	HeldOutPairs  int                     `json:"held_out_pairs"`
	Critic        int                     `json:"critic_examples"`
	Collect       CollectStats            `json:"collect"`
	HeldOutCritic int                     `json:"held_out_critic_examples"`
	DroppedLong   int                     `json:"dropped_too_long"` // examples past the context
	Init          []SFTEpoch              `json:"init"`
	SFT           map[string][]SFTEpoch   `json:"sft"`
	GRPO          map[string][]rl.Metrics `json:"grpo"`
	Rows          []RowResult             `json:"rows"`
	// InitSeconds and CollectSeconds time π_θ0 and the critic data (both
	// splits); each row times its own stage.
	InitSeconds    float64 `json:"init_seconds"`
	CollectSeconds float64 `json:"collect_seconds"`
	Seconds        float64 `json:"seconds"`
	// Stages is every stage's wall and CPU time, in the order they ran.
	Stages []StageTime `json:"stages"`
}

// Run runs the pipeline of cfg: expert data, π_θ0, D_critic, the requested
// rows (each a composition of the stage functions), and their evaluation.
// With cfg.Dir set it writes pairs.jsonl, held_out.jsonl, critic.jsonl,
// checkpoints/<row>.safetensors and report.json there. Every stage checks
// ctx between its updates or epochs; once ctx ends Run returns its error
// (a checkpoint already written stays whole, report.json is not written).
// Each stage's times go into the report and, as it ends, to ctx's stage
// log (WithStageLog).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	clock := newStageClock(ctx, cfg)
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	if err != nil {
		return nil, err
	}
	dec, err := ParseDecoding(cfg.Decoder)
	if err != nil {
		return nil, err
	}
	cfg.Decoder = dec.String() // the report names it, "" included
	rep := &Report{Config: cfg, SFT: map[string][]SFTEpoch{}, GRPO: map[string][]rl.Metrics{}}
	d, err := prepare(ctx, cfg, env, dec, rep, clock)
	if err != nil {
		return nil, err
	}
	pi0, pairs, held, data, heldData, contextLen := d.pi0, d.pairs, d.held, d.data, d.heldData, d.contextLen

	models := map[string]*model.Model{RowPrompting: pi0}
	secs := map[string]float64{}
	train := func(row string, f func() (*model.Model, error)) error {
		m, err := f()
		if err != nil {
			return fmt.Errorf("act row %s: %w", row, err)
		}
		models[row], secs[row] = m, clock.done("train "+row)
		return nil
	}
	sft := func(row string, init *model.Model, f func(*model.Model) (*model.Model, []rl.SFTMetrics, error)) error {
		return train(row, func() (*model.Model, error) {
			m, ms, err := f(init)
			rep.SFT[row] = sftEpochs(ms)
			return m, err
		})
	}
	grpo := func(row string, init *model.Model, f func(*model.Model) (*model.Model, []rl.Metrics, error)) error {
		return train(row, func() (*model.Model, error) {
			m, ms, err := f(init)
			rep.GRPO[row] = ms
			return m, err
		})
	}
	il := func(init *model.Model) (*model.Model, []rl.SFTMetrics, error) {
		return TrainIL(ctx, init, env.Vocab, pairs, cfg.IL)
	}
	rlStage := func(init *model.Model) (*model.Model, []rl.Metrics, error) {
		return TrainRL(ctx, init, env, dec, pairs, cfg.Collect.MaxAction, cfg.RL)
	}
	if cfg.needs(RowACT) {
		if err := grpo(RowACT, pi0, func(m *model.Model) (*model.Model, []rl.Metrics, error) {
			return TrainACTWith(ctx, m, env, cfg.Choice, data, cfg.ACT, ACTExtras{Pairs: pairs, Decoding: dec, MaxAction: cfg.Collect.MaxAction})
		}); err != nil {
			return nil, err
		}
	}
	for _, row := range cfg.Rows {
		switch row {
		case RowIL:
			err = sft(row, pi0, il)
		case RowEE:
			err = sft(row, pi0, func(m *model.Model) (*model.Model, []rl.SFTMetrics, error) {
				ee, n := FitReflections(env, data, contextLen)
				rep.DroppedLong += n
				return TrainEarlyExperience(ctx, m, env.Vocab, pairs, ee, cfg.IL)
			})
		case RowILwACT:
			err = sft(row, models[RowACT], il)
		case RowRL:
			err = grpo(row, pi0, rlStage)
		case RowRLwACT:
			err = grpo(row, models[RowACT], rlStage)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, row := range cfg.Rows {
		r, err := cfg.evaluate(env, dec, row, models[row], held, heldData)
		if err != nil {
			return nil, fmt.Errorf("act row %s: %w", row, err)
		}
		r.TrainSeconds = secs[row]
		rep.Rows = append(rep.Rows, r)
		clock.done("evaluate " + row)
	}
	rep.Seconds, rep.Stages = time.Since(start).Seconds(), clock.stages
	return rep, cfg.write("report.json", func(p string) error { return run.WriteJSON(p, rep) })
}

// stageData is what the rows train and are measured on: the expert pairs
// (train, and held out game by game), π_θ0, its critic data (train and
// held out), and the context length the models are built for.
type stageData struct {
	pairs          []textworld.Pair
	held           [][]textworld.Pair
	pi0            *model.Model
	data, heldData []CriticExample
	contextLen     int
}

// prepare collects the expert pairs, trains π_θ0 and collects D_critic
// (sampled under decoding dec), writing each to cfg's folder and its sizes
// and times into rep, each stage's times into clock.
func prepare(ctx context.Context, cfg Config, env *Env, dec Decoding, rep *Report, clock *stageClock) (*stageData, error) {
	k := cfg.Collect.History
	games, err := env.ExpertGames(textworld.Train, 0, cfg.Games, k)
	if err != nil {
		return nil, err
	}
	pairs := slices.Concat(games...)
	heldGames, err := env.ExpertGames(cfg.heldSplit(), 0, cfg.HeldOut, k)
	if err != nil {
		return nil, err
	}
	held := slices.Concat(heldGames...)
	rep.Pairs, rep.HeldOutPairs = len(pairs), len(held)
	if err := cfg.write("pairs.jsonl", func(p string) error { return WritePairs(p, env.Vocab, pairs) }); err != nil {
		return nil, err
	}
	if err := cfg.write("held_out.jsonl", func(p string) error { return WritePairs(p, env.Vocab, held) }); err != nil {
		return nil, err
	}
	contextLen := cfg.Context
	if contextLen == 0 {
		contextLen = AutoContext(env, pairs, cfg.Collect.MaxAction)
	}
	clock.done("expert data")
	pi0Pairs, share, err := initPairs(cfg, env, games)
	if err != nil {
		return nil, err
	}
	pi0, ms, err := InitialPolicy(ctx, env.Vocab, cfg.Preset, contextLen, pi0Pairs, share, cfg.Choice, cfg.Init, cfg.Seed)
	if err != nil {
		return nil, err
	}
	rep.Model, rep.Init, rep.InitSeconds = pi0.Config, sftEpochs(ms), clock.done("π_θ0")

	var data, heldData []CriticExample
	if cfg.CriticFrom != "" {
		if data, err = ReadCritic(cfg.CriticFrom, env.Vocab); err != nil {
			return nil, err
		}
	} else if data, rep.Collect, err = CriticData(pi0, env, dec, textworld.Train, 0, cfg.Games, cfg.Collect); err != nil {
		return nil, err
	}
	if err := cfg.write("critic.jsonl", func(p string) error { return WriteCritic(p, env.Vocab, data) }); err != nil {
		return nil, err
	}
	if heldData, _, err = CriticData(pi0, env, dec, cfg.heldSplit(), 0, cfg.HeldOut, cfg.Collect); err != nil {
		return nil, err
	}
	rep.CollectSeconds = clock.done("D_critic")
	var dropped int
	data, dropped = FitCritic(env, cfg.Choice, data, contextLen)
	rep.DroppedLong += dropped
	heldData, _ = FitCritic(env, cfg.Choice, heldData, contextLen)
	rep.Critic, rep.HeldOutCritic = len(data), len(heldData)
	return &stageData{pairs: pairs, held: heldGames, pi0: pi0, data: data, heldData: heldData, contextLen: contextLen}, nil
}

// evaluate measures one row's model under decoding dec (and the ID games
// free as well, unless dec is free) and saves its checkpoint.
func (cfg Config) evaluate(env *Env, dec Decoding, row string, m *model.Model, held [][]textworld.Pair, heldData []CriticExample) (RowResult, error) {
	t0 := time.Now()
	r := RowResult{Row: row}
	k, maxAction := cfg.Collect.History, cfg.Collect.MaxAction
	online := func(d Decoding, split textworld.Split, n int) (*Online, error) {
		if n <= 0 {
			return nil, nil
		}
		on, err := EvaluateOnline(m, env, d, split, n, k, maxAction)
		return &on, err
	}
	var err error
	id := cfg.heldSplit()
	nID := min(cfg.Episodes, env.Sizes.Size(id))
	if r.ID, err = online(dec, id, nID); err != nil {
		return r, err
	}
	if len(cfg.InitFamilies) > 0 {
		if r.IDSeen, r.IDUnseen, err = cfg.byFamily(m, env, dec, nID); err != nil {
			return r, err
		}
	}
	if dec != DecodeFree {
		if r.FreeID, err = online(DecodeFree, id, nID); err != nil {
			return r, err
		}
	}
	if r.OOD, err = online(dec, textworld.TestOOD, min(cfg.OODEpisodes, env.Sizes.TestOOD)); err != nil {
		return r, err
	}
	if pairs := slices.Concat(held...); len(pairs) > 0 {
		hits, err := NextActionHits(m, env, dec, pairs, maxAction)
		if err != nil {
			return r, err
		}
		acc := hitShare(hits)
		r.Offline = &acc
		if len(cfg.InitFamilies) > 0 {
			if r.OfflineSeen, r.OfflineUnseen, err = cfg.offlineByFamily(env, held, hits); err != nil {
				return r, err
			}
		}
	}
	if len(heldData) > 0 {
		acc, bad, err := ChoiceAccuracy(m, env.Vocab, cfg.Choice, heldData)
		if err != nil {
			return r, err
		}
		r.Choice, r.ChoiceMalformed = &acc, &bad
	}
	r.EvalSeconds = time.Since(t0).Seconds()
	err = cfg.write(filepath.Join("checkpoints", row+".safetensors"), func(p string) error {
		r.Checkpoint = p
		return m.Save(p, map[string]string{"row": row, "env": cfg.Env})
	})
	return r, err
}

// write calls f with the path of name in cfg.Dir, its folder made
// (nothing without a Dir).
func (cfg Config) write(name string, f func(path string) error) error {
	if cfg.Dir == "" {
		return nil
	}
	path := filepath.Join(cfg.Dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return f(path)
}

// AutoContext sizes the model's context from the expert data: the longest
// state with its action, plus room for two candidate actions (the critic
// prompt) or a reflection of two actions and two observations.
func AutoContext(env *Env, pairs []textworld.Pair, maxAction int) int {
	longest, obs := 0, 0
	for _, p := range pairs {
		longest = max(longest, len(p.State.Tokens(env.Vocab))+len(p.Expert)+1)
		obs = max(obs, len(p.State.Obs))
	}
	return longest + 2*maxAction + 2*obs + 16
}

// FitCritic keeps the critic examples whose choice prompt in format f and
// longest answer fit the context, and counts the others.
func FitCritic(env *Env, f ChoiceFormat, data []CriticExample, context int) ([]CriticExample, int) {
	var out []CriticExample
	for _, c := range data {
		if p, _ := f.Prompt(env.Vocab, c); len(p)+f.MaxAnswer(c) <= context {
			out = append(out, c)
		}
	}
	return out, len(data) - len(out)
}

// FitReflections keeps the critic examples whose reflection example fits
// the context, and counts the others.
func FitReflections(env *Env, data []CriticExample, context int) ([]CriticExample, int) {
	var out []CriticExample
	for _, c := range data {
		if tr := ReflectionData(env.Vocab, []CriticExample{c}); len(tr[0].Tokens) <= context {
			out = append(out, c)
		}
	}
	return out, len(data) - len(out)
}
