package rl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"arew/tasks"
)

// Metrics describe one update; one JSON object per update is a line of a
// run's metrics.jsonl. Episode measures are means over the update's
// episodes (tasks.Summarize; NaN where no episode has the measure, e.g. BT
// measures on a task without beliefs); losses and the like are means over
// the update's minibatches. Not applicable is NaN (the value loss of a
// critic-free trainer, the reference KL without KL), written as null.
type Metrics struct {
	Update   int  `json:"update"`
	Algo     Algo `json:"algo"`
	Episodes int  `json:"episodes"`

	// Episodes.
	Reward      float64 `json:"reward"`
	Success     float64 `json:"success"`
	ASProxy     float64 `json:"as_proxy"`
	BTProxy     float64 `json:"bt_proxy"`
	IAS         float64 `json:"i_as"`
	CBT         float64 `json:"c_bt"`
	Evidence    float64 `json:"evidence"`
	Turns       float64 `json:"turns"`
	Malformed   float64 `json:"malformed"`
	Truncated   int     `json:"truncated"`
	ResponseLen float64 `json:"response_len"` // agent tokens per episode

	// Advantages: the AREW correction's reach.
	AREWActive       bool    `json:"arew_active"`
	AREWTrajectories float64 `json:"arew_margin_trajectories"` // fraction with both a +1 and a −1 critique
	AREWMeanAbs      float64 `json:"arew_mean_abs_correction"` // mean |λu| over agent tokens
	AREWFlipped      int     `json:"arew_flipped"`
	// Where the correction goes, per step kind (AdvantageStats.AS, .BT).
	AREWASAbs float64 `json:"arew_as_abs_correction"`
	AREWBTAbs float64 `json:"arew_bt_abs_correction"`
	AREWASPos float64 `json:"arew_as_pos"`
	AREWASNeg float64 `json:"arew_as_neg"`
	AREWBTPos float64 `json:"arew_bt_pos"`
	AREWBTNeg float64 `json:"arew_bt_neg"`
	AdvMean   float64 `json:"adv_mean"` // over agent tokens, after the correction
	AdvStd    float64 `json:"adv_std"`

	// Optimisation.
	PolicyLoss     float64 `json:"policy_loss"` // the surrogate alone
	ValueLoss      float64 `json:"value_loss"`
	Entropy        float64 `json:"entropy"`
	ApproxKL       float64 `json:"approx_kl"` // mean −log r (verl ppo_kl)
	RefKL          float64 `json:"ref_kl"`    // KL to the initial policy, if on
	ClipFrac       float64 `json:"clip_frac"`
	ClipFracLower  float64 `json:"clip_frac_lower"` // dual clip
	ValueClipFrac  float64 `json:"value_clip_frac"`
	GradNorm       float64 `json:"grad_norm"` // actor, before clipping
	CriticGradNorm float64 `json:"critic_grad_norm"`
	SkippedSteps   int     `json:"skipped_steps"` // non-finite gradient norms
	OptimSteps     int     `json:"optim_steps"`
	LR             float64 `json:"lr"`
	CriticLR       float64 `json:"critic_lr"`

	// Checks. LogpGapMax is the largest |sampling − recomputed| old
	// log-prob over agent tokens (decoder vs training graph: float32
	// rounding, ~1e-6). FirstLogRatioMax is max |log r| on the first
	// minibatch of the first epoch: exactly 0 when the old log-probs are
	// the training graph's own.
	LogpGapMax       float64 `json:"logp_gap_max"`
	FirstLogRatioMax float64 `json:"first_log_ratio_max"`

	// Speed.
	RolloutSeconds      float64 `json:"rollout_s"`
	PrepSeconds         float64 `json:"prep_s"` // old log-probs, values, reference
	OptimSeconds        float64 `json:"optim_s"`
	RolloutTokensPerSec float64 `json:"rollout_tok_s"` // decoded positions per second
	TrainTokensPerSec   float64 `json:"train_tok_s"`   // unpadded positions per second, forward + backward
}

// setEpisodes fills the episode block from the trajectories.
func (m *Metrics) setEpisodes(trajs []*Trajectory) {
	ms := make([]tasks.Measures, len(trajs))
	agent := 0
	m.Truncated = 0
	for i, t := range trajs {
		ms[i] = t.Measures
		agent += t.NumAgentTokens()
		if t.Truncated {
			m.Truncated++
		}
	}
	s := tasks.Summarize(ms)
	m.Episodes = s.Episodes
	m.Reward, m.Success, m.ASProxy, m.BTProxy = s.Reward, s.Success, s.ASProxy, s.BTProxy
	m.IAS, m.CBT, m.Evidence, m.Turns, m.Malformed = s.IAS, s.CBT, s.Evidence, s.Turns, s.Malformed
	m.ResponseLen = float64(agent) / float64(max(len(trajs), 1))
}

// MarshalJSON writes the fields in order under their tags, non-finite
// numbers as null (encoding/json rejects NaN).
func (m Metrics) MarshalJSON() ([]byte, error) { return finiteJSON(m) }

// UnmarshalJSON reads what MarshalJSON wrote; null becomes NaN.
func (m *Metrics) UnmarshalJSON(data []byte) error {
	type plain Metrics
	p := (*plain)(m)
	rv := reflect.ValueOf(p).Elem()
	for i := range rv.NumField() {
		if rv.Field(i).Kind() == reflect.Float64 {
			rv.Field(i).SetFloat(math.NaN())
		}
	}
	return json.Unmarshal(data, p)
}

// finiteJSON encodes a flat struct's tagged fields in declaration order,
// with non-finite float64 fields as null.
func finiteJSON(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := range rt.NumField() {
		tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "%q:", tag)
		f := rv.Field(i)
		if f.Kind() == reflect.Float64 && (math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0)) {
			buf.WriteString("null")
			continue
		}
		b, err := json.Marshal(f.Interface())
		if err != nil {
			return nil, fmt.Errorf("metrics: field %s: %w", tag, err)
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
