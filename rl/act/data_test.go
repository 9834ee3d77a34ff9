package act

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONLRoundTrip(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	v := f.env.Vocab
	pp := filepath.Join(dir, "pairs.jsonl")
	require.NoError(t, WritePairs(pp, v, f.pairs))
	pairs, err := ReadPairs(pp, v)
	require.NoError(t, err)
	require.Len(t, pairs, len(f.pairs))
	for i := range pairs {
		assert.Equal(t, f.pairs[i].State.Tokens(v), pairs[i].State.Tokens(v))
		assert.Equal(t, f.pairs[i].Expert, pairs[i].Expert)
	}
	cp := filepath.Join(dir, "critic.jsonl")
	require.NoError(t, WriteCritic(cp, v, f.critic))
	critic, err := ReadCritic(cp, v)
	require.NoError(t, err)
	require.Len(t, critic, len(f.critic))
	for i, c := range critic {
		want := f.critic[i]
		p1, s1 := ChoiceAction.Prompt(v, want)
		p2, s2 := ChoiceAction.Prompt(v, c)
		assert.Equal(t, p1, p2)
		assert.Equal(t, s1, s2)
		assert.Equal(t, want.AltAdmissible, c.AltAdmissible)
		assert.Equal(t, want.ExpertObs, c.ExpertObs)
		assert.Equal(t, want.AltObs, c.AltObs)
	}
}

func TestReadRejectsBadFiles(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	cases := []struct{ name, text string }{
		{"not json", "{"},
		{"unknown field", `{"goal":"look","history":[],"obs":"look","admissible":[],"expert":"look","colour":1}`},
		{"word outside the vocabulary", `{"goal":"zebra","history":[],"obs":"look","admissible":[],"expert":"look"}`},
		{"structure token", `{"goal":"<bos>","history":[],"obs":"look","admissible":[],"expert":"look"}`},
		{"empty expert action", `{"goal":"look","history":[],"obs":"look","admissible":[],"expert":""}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(c.text+"\n"), 0o644))
			_, err := ReadPairs(p, f.env.Vocab)
			assert.ErrorContains(t, err, "line 1")
		})
	}
	p := filepath.Join(dir, "same.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"goal":"look","history":[],"obs":"look","admissible":[],"expert":"look","alt":"look","expert_first":true,"alt_admissible":true,"expert_obs":"","alt_obs":""}`+"\n"), 0o644))
	_, err := ReadCritic(p, f.env.Vocab)
	assert.ErrorContains(t, err, "equal to the expert")
	_, err = ReadPairs(filepath.Join(dir, "missing.jsonl"), f.env.Vocab)
	assert.Error(t, err)
}
