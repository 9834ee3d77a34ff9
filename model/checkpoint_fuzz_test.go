package model

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"arew/engine"
)

// FuzzLoadConfigClaim feeds Load a tiny model's tensors under any
// model_config: it must never panic nor build a model the tensors do not
// fill (so it never allocates more than the file holds), and a config it
// accepts is the tensors' own.
func FuzzLoadConfigClaim(f *testing.F) {
	cfg := tinyConfig(f, 13, 8, true, false)
	m := newRandomModel(f, cfg, 3, 0.3)
	ts := paramTensors(m)
	own, err := json.Marshal(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(own))
	for _, claim := range []string{
		`{"vocab":13,"context":1000000000,"d_model":32,"layers":2,"heads":2,"mlp":64,"init_std":0.02,"lm_head":true,"value_head":false}`,
		`{"vocab":13,"context":8,"d_model":32,"layers":1000000000,"heads":2,"mlp":64,"init_std":0.02,"lm_head":true,"value_head":false}`,
		`{"vocab":13,"context":8,"d_model":4611686018427387904,"layers":2,"heads":1,"mlp":64,"init_std":0.02,"lm_head":true,"value_head":false}`,
		`{"vocab":-1}`, `{}`, `null`, `[]`,
	} {
		f.Add(claim)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, claim string) {
		path := filepath.Join(dir, "claim.safetensors")
		if err := engine.SaveSafetensors(path, ts, map[string]string{MetaFormat: FormatName, MetaConfig: claim}); err != nil {
			return // not valid UTF-8: not a file Load can be given
		}
		got, _, err := Load(path)
		if err != nil {
			return
		}
		if got.Config.NumParams() != cfg.NumParams() {
			t.Fatalf("accepted a config of %d parameters for a file of %d", got.Config.NumParams(), cfg.NumParams())
		}
	})
}
