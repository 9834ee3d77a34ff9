package study

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/kernels"
	"arew/rl"
	"arew/rl/run"
)

func TestValidateRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*Config)
		errHas string
	}{
		{"empty name", func(c *Config) { c.Name = "" }, "study name"},
		{"name with a slash", func(c *Config) { c.Name = "a/b" }, "study name"},
		{"no task", func(c *Config) { c.Task = "" }, "task"},
		{"task config not an object", func(c *Config) { c.TaskConfig = []byte("[1]") }, "JSON object"},
		{"built base with an unknown preset", func(c *Config) { c.Base.Build.Preset = "huge" }, "huge"},
		{"built base without demos", func(c *Config) { c.Base.Build.Sources[0].Demos = 0 }, "demonstrations"},
		{"bad base sft", func(c *Config) { c.Base.Build.SFT.Epochs = 0 }, "epochs"},
		{"two bases", func(c *Config) { c.Base.Path = "some.safetensors" }, "exactly one"},
		{"no base", func(c *Config) { c.Base = Base{} }, "exactly one"},
		{"unknown shipped base", func(c *Config) { c.Base = Base{Shipped: "nope"} }, "nope"},
		{"no arms", func(c *Config) { c.Arms = nil }, "no arms"},
		{"arm twice", func(c *Config) { c.Arms = append(c.Arms, c.Arms[0]) }, "twice"},
		{"arm name ..", func(c *Config) { c.Arms[0].Name = ".." }, "arm name"},
		{"bad critiques", func(c *Config) { c.Arms[1].AREW.Critiques = "everything" }, "arm arew"},
		{"NaN lambda", func(c *Config) { c.Arms[1].AREW.Lambda = math.NaN() }, "lambda"},
		{"no seeds", func(c *Config) { c.Seeds = nil }, "no seeds"},
		{"seed twice", func(c *Config) { c.Seeds = []uint64{1, 1} }, "twice"},
		{"no updates", func(c *Config) { c.Updates = 0 }, "updates"},
		{"eval episodes", func(c *Config) { c.Eval.Episodes = 0 }, "episodes"},
		{"eval every", func(c *Config) { c.Eval.Every = -1 }, "every"},
		{"eval modes", func(c *Config) { c.Eval.Modes = "all" }, "modes"},
		{"threshold", func(c *Config) { c.Eval.Thresholds = []float64{1.5} }, "thresholds"},
		{"eval baselines", func(c *Config) { c.Eval.Baselines = true }, "baselines"},
		{"eval task config", func(c *Config) { c.Eval.TaskConfig = []byte(`{}`) }, "task_config"},
		{"unknown algo", func(c *Config) { c.Algo = "dqn" }, "algo"},
		{"ppo without its section", func(c *Config) { c.PPO = nil }, "ppo section"},
		{"grpo with ppo's section", func(c *Config) { c.Algo = "grpo" }, "grpo section"},
		{"gspo with grpo's objective", func(c *Config) {
			g := rl.DefaultGRPOConfig()
			c.Algo, c.PPO, c.GRPO = "gspo", nil, &g
		}, "objective"},
		{"bad ppo", func(c *Config) { c.PPO.Episodes = 0 }, "episodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Smoke()
			p := *c.PPO
			c.PPO = &p
			tc.edit(&c)
			err := c.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.errHas)
		})
	}
}

func TestPresetsAreValid(t *testing.T) {
	require.NotEmpty(t, PresetNames())
	for _, name := range PresetNames() {
		if gate(name) != nil || Suites[name] != nil {
			continue // TestTable1RefusesWhatIsMissing, TestRunSuite
		}
		c, err := Preset(name)
		require.NoError(t, err)
		assert.NoError(t, c.Validate(), name)
	}
	_, err := Preset("no-such")
	assert.ErrorContains(t, err, "smoke")
}

func TestBaseGivenAsPathNeedsNothingElse(t *testing.T) {
	c := Smoke()
	c.Base = Base{Path: "some.safetensors"}
	assert.NoError(t, c.Validate())
}

func TestStandardArms(t *testing.T) {
	arms := StandardArms(0.5, kernels.MarginStep)
	names := make([]string, len(arms))
	for i, a := range arms {
		names[i] = a.Name
	}
	assert.Equal(t, []string{"vanilla", "arew", "arew-as", "arew-bt"}, names)
	assert.False(t, arms[0].AREW.Active(0), "vanilla has no correction")
	for i, crit := range []rl.CritiqueSet{"as+bt", "as", "bt"} {
		assert.Equal(t, crit, arms[i+1].AREW.Critiques)
		assert.True(t, arms[i+1].AREW.Active(0))
	}
}

func TestRunConfigSetsTheArmAndTheSeed(t *testing.T) {
	c := Smoke()
	arms := c.Arms
	r, err := c.runConfig(arms[1], 7, "base.safetensors")
	require.NoError(t, err)
	assert.Equal(t, uint64(7), r.PPO.Seed)
	assert.Equal(t, arms[1].AREW, r.PPO.Advantage.AREW)
	assert.Equal(t, rl.CritiquesNone, c.PPO.Advantage.AREW.Critiques, "the study's own config is not changed")
}

func TestUpdatesTo(t *testing.T) {
	at := func(u int, success float64) run.Point {
		return run.Point{Update: u, Modes: run.Modes{Sampled: &run.Measures{Success: run.Num(success)}, Greedy: &run.Measures{Success: 1}}}
	}
	u := func(x int) *int { return &x }
	for _, tc := range []struct {
		name  string
		curve []run.Point
		want  map[string]*int
	}{
		{"never", []run.Point{at(0, 0.1), at(10, 0.4)}, map[string]*int{"0.5": nil, "0.8": nil}},
		{"exactly at the threshold", []run.Point{at(0, 0.1), at(10, 0.5), at(20, 0.9)}, map[string]*int{"0.5": u(10), "0.8": u(20)}},
		{"the first crossing, not the last", []run.Point{at(0, 0.6), at(10, 0.2), at(20, 0.6)}, map[string]*int{"0.5": u(0), "0.8": nil}},
		{"greedy does not count", []run.Point{{Update: 0, Modes: run.Modes{Greedy: &run.Measures{Success: 1}}}}, map[string]*int{"0.5": nil, "0.8": nil}},
		{"NaN never reaches", []run.Point{at(0, math.NaN())}, map[string]*int{"0.5": nil, "0.8": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, updatesTo(tc.curve, DefaultThresholds))
		})
	}
}

func TestThresholdKey(t *testing.T) {
	assert.Equal(t, "0.5", thresholdKey(0.5))
	assert.Equal(t, "0.85", thresholdKey(0.85))
	assert.Equal(t, "1.0", thresholdKey(1))
}

func TestDecodeConfigOverlaysAPreset(t *testing.T) {
	c := Smoke()
	require.NoError(t, DecodeConfig([]byte(`{"seeds": [4, 5, 6], "updates": 9, "ppo": {"episodes": 16}}`), &c))
	assert.Equal(t, []uint64{4, 5, 6}, c.Seeds)
	assert.Equal(t, 9, c.Updates)
	assert.Equal(t, 16, c.PPO.Episodes)
	assert.Equal(t, Smoke().PPO.Policy, c.PPO.Policy, "fields not named stay")
	assert.Equal(t, "flodial-easy", c.Task)

	// Arms named replace the preset's whole: the first preset arm's
	// recipe does not leak into an arm that gives none.
	c = TuneVanilla()
	require.NotEmpty(t, c.Arms[0].PPO)
	require.NoError(t, DecodeConfig([]byte(`{"arms": [{"name": "x", "arew": {"critiques": "as+bt", "lambda": 3, "mode": "step"}}]}`), &c))
	require.Len(t, c.Arms, 1)
	assert.Equal(t, "x", c.Arms[0].Name)
	assert.Empty(t, c.Arms[0].PPO, "an arm given without its ppo has none")

	// A whole config decodes to itself.
	data := []byte(mustJSON(t, Smoke()))
	var again Config
	require.NoError(t, DecodeConfig(data, &again))
	assert.Equal(t, mustJSON(t, Smoke()), mustJSON(t, again))

	for _, bad := range []string{`{"no_such": 1}`, `{"updates": "x"}`, `{} {}`, `[1]`} {
		c := Smoke()
		assert.Error(t, DecodeConfig([]byte(bad), &c), bad)
	}
}
