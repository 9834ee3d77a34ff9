package study

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"arew/rl/run"
)

// The lock rule of docs/arew.md §8, step 3, written before any RL: it
// reads the candidate bases' validation tables (BaseSummary rows) only.
const (
	// LockSuccessSlack is how far above the best constant answer a
	// qualifying base's hasty sampled success may be.
	LockSuccessSlack = 0.03
	// LockMalformed is the most malformed turns per episode a qualifying
	// base's hasty sampled play may have.
	LockMalformed = 0.05
)

// LockVerdict is one candidate under the rule: the numbers it reads, and
// which of the four criteria fail ("" when it qualifies).
type LockVerdict struct {
	Name string
	QBT  float64
	// Hasty sampled success against the best constant answer's.
	Success, BestConstant float64
	// Hasty sampled AS proxy and I_AS against the scripted random policy's
	// (under the hasty style).
	ASProxy, RandomASProxy, IAS, RandomIAS float64
	// Malformed turns per episode, hasty sampled.
	Malformed float64
	// Careful greedy success against the scripted strong policy's.
	Careful, Strong float64
	Missed          []string
}

// Qualifies says whether every criterion holds.
func (v LockVerdict) Qualifies() bool { return len(v.Missed) == 0 }

// JudgeLock applies the four criteria to a candidate's summary: hasty
// sampled success ≤ best constant + LockSuccessSlack; hasty AS proxy and
// I_AS below the random policy's; hasty malformed turns ≤ LockMalformed;
// careful greedy success ≥ CapabilityTarget × the strong policy's. A row
// it needs and cannot find is an error.
func JudgeLock(s *BaseSummary) (LockVerdict, error) {
	v := LockVerdict{Name: s.Name, QBT: hastyQBT(s.Config)}
	get := func(source, policy string) (*run.Measures, error) {
		for _, r := range s.Rows {
			if r.Source == source && strings.HasPrefix(r.Policy, policy) {
				return r.Measures, nil
			}
		}
		return nil, fmt.Errorf("lock rule: base %s has no row %q under %s", s.Name, policy, source)
	}
	var rows [5]*run.Measures
	for i, want := range [][2]string{{"hasty", "base, sampled"}, {"hasty", "best constant"}, {"hasty", "scripted random"},
		{"careful", "base, greedy"}, {"careful", "scripted strong"}} {
		m, err := get(want[0], want[1])
		if err != nil {
			return v, err
		}
		rows[i] = m
	}
	hasty, constant, random, careful, strong := rows[0], rows[1], rows[2], rows[3], rows[4]
	v.Success, v.BestConstant = float64(hasty.Success), float64(constant.Success)
	v.ASProxy, v.RandomASProxy = float64(hasty.ASProxy), float64(random.ASProxy)
	v.IAS, v.RandomIAS = float64(hasty.IAS), float64(random.IAS)
	v.Malformed = float64(hasty.Malformed)
	v.Careful, v.Strong = float64(careful.Success), float64(strong.Success)
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{v.Success <= v.BestConstant+LockSuccessSlack, "hasty success above the best constant + 0.03"},
		{v.ASProxy < v.RandomASProxy, "hasty AS proxy not below random's"},
		{v.IAS < v.RandomIAS, "hasty I_AS not below random's"},
		{v.Malformed <= LockMalformed, "hasty turns malformed (> 0.05 per episode)"},
		{v.Careful >= CapabilityTarget*v.Strong, "careful greedy success below 0.85 × strong's"},
	} {
		if !c.ok {
			v.Missed = append(v.Missed, c.what)
		}
	}
	return v, nil
}

// ChooseLock is the rule's choice among a setting's candidates: the
// qualifying one with the smallest q_BT; if none qualifies, the one that
// misses the fewest criteria (ties: the smallest q_BT). It returns the
// chosen candidate's index and every verdict, in the candidates' order.
func ChooseLock(cands []*BaseSummary) (int, []LockVerdict, error) {
	var vs []LockVerdict
	best := -1
	for i, c := range cands {
		v, err := JudgeLock(c)
		if err != nil {
			return -1, nil, err
		}
		vs = append(vs, v)
		if best < 0 || len(v.Missed) < len(vs[best].Missed) ||
			(len(v.Missed) == len(vs[best].Missed) && v.QBT < vs[best].QBT) {
			best = i
		}
	}
	if best < 0 {
		return -1, nil, fmt.Errorf("lock rule: no candidates")
	}
	return best, vs, nil
}

// LockTable is the Markdown table of the verdicts, the chosen one marked.
func LockTable(vs []LockVerdict, chosen int) string {
	header := []string{"candidate", "q_BT", "hasty sampled success (best constant)", "hasty AS proxy (random's)",
		"hasty I_AS (random's)", "hasty malformed turns", "careful greedy (0.85 × strong)", "qualifies"}
	var rows [][]string
	for i, v := range vs {
		verdict := "yes"
		if !v.Qualifies() {
			verdict = "no: " + strings.Join(v.Missed, "; ")
		}
		if i == chosen {
			verdict += " — **chosen**"
		}
		rows = append(rows, []string{v.Name, fmt.Sprintf("%g", v.QBT),
			fmt.Sprintf("%.3f (%.3f)", v.Success, v.BestConstant), fmt.Sprintf("%.3f (%.3f)", v.ASProxy, v.RandomASProxy),
			fmt.Sprintf("%.3f (%.3f)", v.IAS, v.RandomIAS), fmt.Sprintf("%.3f", v.Malformed),
			fmt.Sprintf("%.3f (%.3f)", v.Careful, CapabilityTarget*v.Strong), verdict})
	}
	return run.MarkdownTable(header, 1, rows)
}

// LockSettings are the settings with lock candidates (Bases holds
// <setting>-locked), sorted.
func LockSettings() []string {
	var out []string
	for name := range Bases {
		if setting, ok := strings.CutSuffix(name, lockedSuffix); ok {
			out = append(out, setting)
		}
	}
	slices.Sort(out)
	return out
}

// ReadLockCandidates reads setting's built candidates from dir, in
// LockQBT's order up to the first one not built: each one's summary.json
// in dir/<candidate>/, as -build-base -out dir writes it, or in
// dir/base-<candidate>/, as docs/results commits it.
func ReadLockCandidates(dir, setting string) ([]*BaseSummary, error) {
	if !slices.Contains(LockSettings(), setting) {
		return nil, run.InputErrorf("no lock candidates for %q (settings: %s)", setting, strings.Join(LockSettings(), ", "))
	}
	var cands []*BaseSummary
	for _, q := range LockQBT {
		name := LockCandidate(setting, q)
		var s BaseSummary
		found := false
		for _, folder := range []string{name, "base-" + name} {
			err := run.ReadJSON(filepath.Join(dir, folder, BaseSummaryFile), run.MaxConfigBytes, &s)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, run.InputErrorf("candidate %s: %v", name, err)
			}
			if s.Name != name {
				return nil, run.InputErrorf("candidate %s: %s holds base %q", name, folder, s.Name)
			}
			found = true
			break
		}
		if !found {
			break
		}
		cands = append(cands, &s)
	}
	return cands, nil
}

// LockChoice is the rule on setting's candidates built in dir: the table
// of verdicts and the pick, or, while a candidate with a larger q_BT is
// not built and none built qualifies, that the pick is not known yet.
// picked is "" then.
func LockChoice(dir, setting string) (picked, report string, err error) {
	cands, err := ReadLockCandidates(dir, setting)
	if err != nil {
		return "", "", err
	}
	if len(cands) == 0 {
		return "", "", run.InputErrorf("no candidate of %s is built in %s (build %s first with -build-base)", setting, dir, LockCandidate(setting, LockQBT[0]))
	}
	chosen, vs, err := ChooseLock(cands)
	if err != nil {
		return "", "", err
	}
	if len(cands) < len(LockQBT) && !vs[chosen].Qualifies() {
		next := LockCandidate(setting, LockQBT[len(cands)])
		return "", LockTable(vs, -1) + fmt.Sprintf("\nNo candidate built qualifies: the rule's pick waits for %s (-build-base %s).\n", next, next), nil
	}
	picked = cands[chosen].Name
	return picked, LockTable(vs, chosen) + fmt.Sprintf("\nThe rule picks %s.\n", picked), nil
}
