package act

import (
	"fmt"
	"math"

	"arew/rl/run"
)

// The paper's orderings (docs/act.md §4), checked per seed on a study.

func (s *Summary) row(name, arm string) *TableRow {
	for i := range s.Table {
		if s.Table[i].Row == name && s.Table[i].Arm == arm {
			return &s.Table[i]
		}
	}
	return nil
}

// HoldingShare is the share of seeds on which an ordering must show its
// sign to hold: four in five, the goal's "on ≥ 4 of 5 seeds, paired".
const HoldingShare = 0.8

// diff is the ordering "a − b ≥ margin" (strict: > margin) over the seeds,
// paired: each seed's difference of the values picked from the two rows.
// A seed counts when its difference has the claimed sign (≥ 0, or > 0
// when strict); the mean must clear the margin; and the ordering holds
// when both the mean does and at least HoldingShare of the seeds do. A
// tie at zero (both rows 0 on a seed: nothing measured) never counts for
// the ordering, on a seed or on the mean.
func diff(claim string, paper, margin float64, a, b []run.Num, strict bool) Ordering {
	p := run.PairedOf(floats(a), floats(b))
	o := Ordering{Claim: claim, Paper: run.Num(paper), Margin: run.Num(margin), Ours: run.Num(p.Mean), SE: run.Num(p.SE()), Of: p.Pairs}
	zeroTies := 0
	for i, d := range p.Deltas {
		o.PerSeed = append(o.PerSeed, run.Num(d))
		if math.IsNaN(d) {
			continue
		}
		zeroTie := a[i] == 0 && b[i] == 0
		if zeroTie {
			zeroTies++
		}
		if d > 0 || (!strict && d == 0 && !zeroTie) {
			o.Seeds++
		}
	}
	o.MeanHolds = p.Pairs > 0 && zeroTies < p.Pairs && (p.Mean > margin || (!strict && p.Mean == margin))
	o.Holds = o.MeanHolds && float64(o.Seeds) >= HoldingShare*float64(p.Pairs)-1e-9
	return o
}

func floats(xs []run.Num) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// seeds is row's (and arm's) per-seed values in column ci of the table.
func (s *Summary) seeds(row, arm string, ci int) []run.Num {
	if t := s.row(row, arm); t != nil {
		return t.Cells[ci].PerSeed
	}
	return nil
}

// headline is what a table1 study's orderings compare: each row's
// per-seed average of ALFWorld ID, WebShop and ScienceWorld (where, the
// label) and the paper's; or, in a study of one environment, that
// environment's own column (ALFWorld ID, WebShop or ScienceWorld) and the
// paper's number there.
func (s *Summary) headline() (where string, of func(row string) []run.Num, paper func(row string) float64) {
	if len(s.order) == 1 {
		for ci, c := range s.cols {
			if c.Env == s.order[0] {
				return c.Label, func(r string) []run.Num { return s.seeds(r, "", ci) },
					func(r string) float64 { return Published[r][ci] }
			}
		}
	}
	of = func(r string) []run.Num {
		if t := s.row(r, ""); t != nil && t.Average != nil {
			return t.Average.PerSeed
		}
		return nil
	}
	return "average of ALFWorld ID, WebShop, ScienceWorld", of, publishedAverage
}

func (s *Summary) table1Orderings() []Ordering {
	var out []Ordering
	where, avg, paper := s.headline()
	// (the paper's numbers have two decimals, and so have their gaps)
	gap := func(a, b string) float64 { return math.Round(100*(paper(a)-paper(b))) / 100 }
	out = append(out,
		diff("IL w/ ACT ≥ IL + 2 ("+where+")", gap(RowILwACT, RowIL), 2, avg(RowILwACT), avg(RowIL), false),
		diff("RL w/ ACT ≥ RL + 2 ("+where+")", gap(RowRLwACT, RowRL), 2, avg(RowRLwACT), avg(RowRL), false),
		diff("IL w/ ACT ≥ Early Experience ("+where+")", gap(RowILwACT, RowEE), 0, avg(RowILwACT), avg(RowEE), false),
		diff("Early Experience ≥ IL ("+where+")", gap(RowEE, RowIL), 0, avg(RowEE), avg(RowIL), false),
		diff("ACT > prompting ("+where+")", gap(RowACT, RowPrompting), 0, avg(RowACT), avg(RowPrompting), true))
	// The OOD gap: (RL w/ ACT − RL) on OOD minus the same on ID, per seed.
	var gapOOD, gapID []run.Num
	a, b := s.seeds(RowRLwACT, "", 1), s.seeds(RowRL, "", 1)
	c, d := s.seeds(RowRLwACT, "", 0), s.seeds(RowRL, "", 0)
	for i := range min(len(a), len(b), len(c), len(d)) {
		gapOOD, gapID = append(gapOOD, a[i]-b[i]), append(gapID, c[i]-d[i])
	}
	out = append(out, diff("the gain of RL w/ ACT over RL is larger on ALFWorld OOD than ID", 3.73-2.15, 0, gapOOD, gapID, true))
	// Capability: the critic judges better after ACT than π_θ0.
	var before, after []run.Num
	for _, cv := range s.Curves {
		before, after = append(before, 100*cv.Before), append(after, 100*cv.After)
	}
	out = append(out, diff("ACT raises the held-out choice accuracy over π_θ0's (every environment and seed)", math.NaN(), 0, after, before, true))
	return measured(out)
}

// measured drops the orderings with no seed to pair: those whose rows
// the study does not run (a probe of a few rows), or whose runs predate
// the measure, which would otherwise be listed as "0/0, no".
func measured(os []Ordering) []Ordering {
	var out []Ordering
	for _, o := range os {
		if o.Of > 0 {
			out = append(out, o)
		}
	}
	return out
}

// finishTransfer builds a transfer study's table: every row under both
// arms, and the paper's cross-size orderings on the ID success.
func (s *Summary) finishTransfer(cfg StudyConfig) {
	for _, row := range rows(cfg.Runs[0]) {
		for _, arm := range []string{ArmOwn, ArmTransfer} {
			s.Table = append(s.Table, s.tableRow(row, arm, s.cols))
		}
	}
	id := func(r, arm string) []run.Num { return s.seeds(r, arm, 0) }
	s.Orderings = []Ordering{
		diff(fmt.Sprintf("IL w/ ACT ≥ IL on %s ID, with the source's critic data", cfg.Runs[0].Env), 88.57-85.00, 0, id(RowILwACT, ArmTransfer), id(RowIL, ArmTransfer), false),
		diff(fmt.Sprintf("RL w/ ACT ≥ RL on %s ID, with the source's critic data", cfg.Runs[0].Env), 92.14-91.43, 0, id(RowRLwACT, ArmTransfer), id(RowRL, ArmTransfer), false),
		diff("IL w/ ACT: the source's critic data ≥ the target's own", math.NaN(), 0, id(RowILwACT, ArmTransfer), id(RowILwACT, ArmOwn), false),
		diff("RL w/ ACT: the source's critic data ≥ the target's own", math.NaN(), 0, id(RowRLwACT, ArmTransfer), id(RowRLwACT, ArmOwn), false),
	}
}
