package act

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"arew/tasks/textworld"
)

// CollectCritic builds π_θ0 with cfg's preset and writes the D_critic it
// samples on cfg's games to path: the data of a cross-size run.
func CollectCritic(ctx context.Context, cfg Config, path string) (CollectStats, error) {
	if err := cfg.Validate(); err != nil {
		return CollectStats{}, err
	}
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	if err != nil {
		return CollectStats{}, err
	}
	games, err := env.ExpertGames(textworld.Train, 0, cfg.Games, cfg.Collect.History)
	if err != nil {
		return CollectStats{}, err
	}
	pairs := slices.Concat(games...)
	context := cfg.Context
	if context == 0 {
		context = AutoContext(env, pairs, cfg.Collect.MaxAction)
	}
	pi0Pairs, share, err := initPairs(cfg, env, games)
	if err != nil {
		return CollectStats{}, err
	}
	pi0, _, err := InitialPolicy(ctx, env.Vocab, cfg.Preset, context, pi0Pairs, share, cfg.Choice, cfg.Init, cfg.Seed)
	if err != nil {
		return CollectStats{}, err
	}
	d, err := ParseDecoding(cfg.Decoder)
	if err != nil {
		return CollectStats{}, err
	}
	data, st, err := CriticData(pi0, env, d, textworld.Train, 0, cfg.Games, cfg.Collect)
	if err != nil {
		return st, err
	}
	return st, WriteCritic(path, env.Vocab, data)
}

// Transfer is the cross-size experiment: D_critic sampled from the π_θ0
// of source's preset trains the rows of target (a smaller preset, the same
// environment and games). It writes source-critic.jsonl into target.Dir.
func Transfer(ctx context.Context, source, target Config) (*Report, error) {
	if target.Dir == "" {
		return nil, fmt.Errorf("act transfer: the target run needs a dir for the collected data")
	}
	if source.Env != target.Env || source.Games != target.Games || string(source.EnvConfig) != string(target.EnvConfig) {
		return nil, fmt.Errorf("act transfer: source and target must share the environment and the games")
	}
	if err := target.write("source-critic.jsonl", func(string) error { return nil }); err != nil {
		return nil, err
	}
	path := filepath.Join(target.Dir, "source-critic.jsonl")
	if _, err := CollectCritic(ctx, source, path); err != nil {
		return nil, fmt.Errorf("act transfer: source: %w", err)
	}
	target.CriticFrom = path
	return Run(ctx, target)
}
