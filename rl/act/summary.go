package act

import (
	"math"
	"slices"

	"arew/rl/run"
)

// Arms of a transfer study.
const (
	ArmOwn      = "own"      // the target preset on the D_critic of its own π_θ0
	ArmTransfer = "transfer" // the target preset on the source preset's D_critic
)

// Column is one column of the ACT table: a measure of one environment's
// runs, in percent as the paper prints it.
type Column struct {
	Key, Label, Env string
	pick            func(RowResult) float64
}

func success(o *Online) float64 {
	if o == nil {
		return math.NaN()
	}
	return 100 * o.Success
}

func ptr(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return 100 * *x
}

// Table1Columns are the paper's four columns: online success on
// ALFWorld's ID and OOD test splits and on WebShop, offline next-action
// accuracy on ScienceWorld.
var Table1Columns = []Column{
	{"alfworld-id", "ALFWorld ID", "alfworld", func(r RowResult) float64 { return success(r.ID) }},
	{"alfworld-ood", "ALFWorld OOD", "alfworld", func(r RowResult) float64 { return success(r.OOD) }},
	{"webshop", "WebShop", "webshop", func(r RowResult) float64 { return success(r.ID) }},
	{"sciworld", "ScienceWorld", "sciworld", func(r RowResult) float64 { return ptr(r.Offline) }},
}

// averaged are the columns of the paper's average (ALFWorld ID, WebShop,
// ScienceWorld).
var averaged = []string{"alfworld-id", "webshop", "sciworld"}

// transferColumns are a transfer study's measures on its one environment.
func transferColumns(env string) []Column {
	return []Column{
		{"id", env + " ID", env, func(r RowResult) float64 { return success(r.ID) }},
		{"ood", env + " OOD", env, func(r RowResult) float64 { return success(r.OOD) }},
		{"offline", "next-action acc.", env, func(r RowResult) float64 { return ptr(r.Offline) }},
		{"choice", "choice acc.", env, func(r RowResult) float64 { return ptr(r.Choice) }},
	}
}

// Published is docs/act.md §4 (Qwen3-8B, percent): the row's ALFWorld
// ID, ALFWorld OOD, WebShop and ScienceWorld. The prompting row is the
// paper's prompting without chain of thought.
var Published = map[string][4]float64{
	RowPrompting: {35.71, 27.61, 2.80, 28.01},
	RowACT:       {72.86, 72.39, 7.40, 26.71},
	RowIL:        {85.71, 82.84, 28.00, 42.80},
	RowEE:        {87.86, 85.82, 31.00, 45.60},
	RowILwACT:    {91.43, 87.31, 31.60, 48.69},
	RowRL:        {90.71, 84.33, 29.40, 43.04},
	RowRLwACT:    {92.86, 88.06, 33.80, 50.34},
}

// publishedAverage is the paper's average of ALFWorld ID, WebShop and
// ScienceWorld for row (NaN for a row it does not publish).
func publishedAverage(row string) float64 {
	p, ok := Published[row]
	if !ok {
		return math.NaN()
	}
	return (p[0] + p[2] + p[3]) / 3
}

// Cell is a measure over the seeds.
type Cell struct {
	Mean    run.Num   `json:"mean"`
	Std     run.Num   `json:"std"` // sample std (n − 1); null for one seed
	PerSeed []run.Num `json:"per_seed"`
	Paper   *float64  `json:"paper,omitempty"`
}

func cellOf(xs []float64) Cell {
	m, s, _ := run.MeanStd(xs)
	c := Cell{Mean: run.Num(m), Std: run.Num(s)}
	for _, x := range xs {
		c.PerSeed = append(c.PerSeed, run.Num(x))
	}
	return c
}

// TableRow is one row (and, in a transfer, one arm) of a study's table.
type TableRow struct {
	Row   string `json:"row"`
	Arm   string `json:"arm,omitempty"`
	Cells []Cell `json:"cells"`
	// Average over ALFWorld ID, WebShop and ScienceWorld, per seed (table1).
	Average *Cell `json:"average,omitempty"`
	// Repeated is the failure-recovery count: steps per ALFWorld ID
	// episode that repeat an action just answered "nothing happens",
	// decoded free (RowResult.FreeID) whatever the run's decoder.
	Repeated *Cell `json:"repeated_failures,omitempty"`
	// WebShopReward is the mean reward of the WebShop episodes (percent):
	// the attribute score, which still ranks rows where no episode
	// reaches reward 1.
	WebShopReward *Cell `json:"webshop_reward,omitempty"`
}

// Curve is the ACT stage's sampled accuracy per update of one run.
type Curve struct {
	Group string    `json:"group"` // the environment (table1) or arm (transfer)
	Seed  uint64    `json:"seed"`
	Acc   []float64 `json:"sampled_accuracy"`
	// Before and After are the greedy held-out choice accuracies of π_θ0
	// and of the ACT model.
	Before run.Num `json:"choice_before"`
	After  run.Num `json:"choice_after"`
}

// Ordering is one of the paper's claims checked on the study, paired by
// seed (docs/act.md, "Reading the orderings").
type Ordering struct {
	Claim string `json:"claim"`
	// Ours is the mean over seeds of the claimed difference (points), SE
	// its standard error (the paired differences' sample std over √Of);
	// Paper the paper's.
	Ours  run.Num `json:"ours"`
	SE    run.Num `json:"se"`
	Paper run.Num `json:"paper"`
	// Margin is how far the mean must clear zero (points): the goal's
	// "IL w/ ACT ≥ IL + 2".
	Margin run.Num `json:"margin"`
	// Seeds is how many seeds show the difference ≥ 0 (> 0 for a strict
	// claim; a tie at zero, both rows 0, does not count).
	Seeds int `json:"seeds_holding"`
	Of    int `json:"of"` // the seeds (runs, for the choice accuracy) compared
	// MeanHolds: the mean difference clears the margin with the paper's
	// sign, and is not a tie at zero. Holds: that, and on at least four
	// seeds in five (HoldingShare).
	MeanHolds bool `json:"mean_holds"`
	Holds     bool `json:"holds"`
	// PerSeed are the paired differences, seed by seed (null: not measured).
	PerSeed []run.Num `json:"per_seed"`
}

// Summary is a study's summary.json.
type Summary struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind"`
	Seeds []uint64 `json:"seeds"`
	// Decoder is how the rows wrote their actions (Config.Decoder; "free"
	// for runs made before the setting existed); "mixed" if the runs
	// differ.
	Decoder string `json:"decoder"`
	// Split is "val" when every run read the validation split
	// (Config.Split), "mixed" when the runs differ, absent for the test
	// split.
	Split     string     `json:"split,omitempty"`
	Columns   []string   `json:"columns"`
	Table     []TableRow `json:"table"`
	Curves    []Curve    `json:"act_stage"`
	Orderings []Ordering `json:"orderings"`
	// Offline is every row's offline next-action accuracy and greedy
	// held-out choice accuracy on each environment (table1; in percent):
	// the measures that move when online success is at the floor.
	OfflineColumns []string   `json:"offline_columns,omitempty"`
	Offline        []TableRow `json:"offline,omitempty"`
	// FamilyColumns, Families and FamilyOrderings split each column of
	// the paper's average by task family, where the runs trained π_θ0 on
	// some families only (Config.InitFamilies; table1): the games of
	// π_θ0's families and the others, and the orderings on the others.
	FamilyColumns   []string   `json:"family_columns,omitempty"`
	Families        []TableRow `json:"families,omitempty"`
	FamilyOrderings []Ordering `json:"family_orderings,omitempty"`
	Seconds         float64    `json:"seconds"`
	Expect          string     `json:"expected_run_time,omitempty"`
	Plots           []string   `json:"plots"`
	// Runs holds each group's reports in seed order (not written: every
	// run's report.json is in its folder).
	Runs  map[string][]*Report `json:"-"`
	order []string
	cols  []Column
}

func (s *Summary) add(group string, r *Report) {
	if s.Runs == nil {
		s.Runs = map[string][]*Report{}
	}
	if _, ok := s.Runs[group]; !ok {
		s.order = append(s.order, group)
	}
	s.Runs[group] = append(s.Runs[group], r)
	first := len(s.order) == 1 && len(s.Runs[group]) == 1
	d := r.Config.Decoder
	if d == "" {
		d = DecodeFree.String() // Run writes the decoder's name; an older report has none
	}
	agree(&s.Decoder, d, first)
	sp := r.Config.Split
	if sp == "test" {
		sp = ""
	}
	agree(&s.Split, sp, first)
}

// agree folds one run's value v into a field that the runs share: the
// first run's value, then "mixed" once a run differs.
func agree(field *string, v string, first bool) {
	switch {
	case first:
		*field = v
	case *field != v:
		*field = "mixed"
	}
}

// rowValues is pick of row over the seeds of group (NaN where a seed's
// run does not have the row).
func (s *Summary) rowValues(group, row string, pick func(RowResult) float64) []float64 {
	var xs []float64
	for _, rep := range s.Runs[group] {
		x := math.NaN()
		for _, r := range rep.Rows {
			if r.Row == row {
				x = pick(r)
			}
		}
		xs = append(xs, x)
	}
	return xs
}

// rows is the rows the study's runs have, in the table's order.
func rows(cfg Config) []string {
	return slices.DeleteFunc(slices.Clone(AllRows), func(r string) bool { return !slices.Contains(cfg.Rows, r) })
}

// finish builds the table, the curves and the orderings from the runs.
func (s *Summary) finish(cfg StudyConfig) {
	s.Expect = cfg.Expect
	s.Table, s.Curves, s.Orderings, s.Columns = nil, nil, nil, nil
	s.Offline, s.OfflineColumns = nil, nil
	s.Families, s.FamilyColumns, s.FamilyOrderings = nil, nil, nil
	if cfg.Kind == KindTransfer {
		s.cols = transferColumns(cfg.Runs[0].Env)
	} else {
		s.cols = Table1Columns
	}
	for _, c := range s.cols {
		s.Columns = append(s.Columns, c.Label)
	}
	for _, g := range s.order {
		for _, rep := range s.Runs[g] {
			cv := Curve{Group: g, Seed: rep.Config.Seed, Before: run.Num(math.NaN()), After: run.Num(math.NaN())}
			for _, m := range rep.GRPO[RowACT] {
				cv.Acc = append(cv.Acc, m.Success)
			}
			for _, r := range rep.Rows {
				if r.Row == RowPrompting && r.Choice != nil {
					cv.Before = run.Num(*r.Choice)
				}
				if r.Row == RowACT && r.Choice != nil {
					cv.After = run.Num(*r.Choice)
				}
			}
			if len(cv.Acc) > 0 {
				s.Curves = append(s.Curves, cv)
			}
		}
	}
	if cfg.Kind == KindTransfer {
		s.finishTransfer(cfg)
		return
	}
	for _, row := range rows(cfg.Runs[0]) {
		tr := s.tableRow(row, "", s.cols)
		perCol := map[string][]float64{}
		p, published := Published[row]
		for ci, c := range s.cols {
			perCol[c.Key] = floats(tr.Cells[ci].PerSeed)
			if published {
				tr.Cells[ci].Paper = &p[ci]
			}
		}
		avg := cellOf(averageOf(perCol, len(s.Seeds)))
		if published {
			v := publishedAverage(row)
			avg.Paper = &v
		}
		tr.Average = &avg
		tr.Repeated = s.online("alfworld", row, RowResult.freeID, func(o *Online) float64 { return o.RepeatedFailures })
		tr.WebShopReward = s.online("webshop", row, RowResult.id, func(o *Online) float64 { return 100 * o.MeanReward })
		s.Table = append(s.Table, tr)
	}
	s.Orderings = s.table1Orderings()
	s.offlineTable(cfg)
	s.familyTable(cfg)
}

// offlineTable fills Offline: per environment run, next-action and choice
// accuracy.
func (s *Summary) offlineTable(cfg StudyConfig) {
	s.Offline, s.OfflineColumns = nil, nil
	var cols []Column
	for _, env := range s.order {
		cols = append(cols,
			Column{env + "-offline", env + " next action", env, func(r RowResult) float64 { return ptr(r.Offline) }},
			Column{env + "-choice", env + " choice", env, func(r RowResult) float64 { return ptr(r.Choice) }})
	}
	for _, c := range cols {
		s.OfflineColumns = append(s.OfflineColumns, c.Label)
	}
	for _, row := range rows(cfg.Runs[0]) {
		s.Offline = append(s.Offline, s.tableRow(row, "", cols))
	}
}

// tableRow is row's cells in cols over the seeds, each column's from the
// runs of its environment, or of arm when one is given (a transfer).
func (s *Summary) tableRow(row, arm string, cols []Column) TableRow {
	tr := TableRow{Row: row, Arm: arm}
	for _, c := range cols {
		group := c.Env
		if arm != "" {
			group = arm
		}
		tr.Cells = append(tr.Cells, cellOf(s.rowValues(group, row, c.pick)))
	}
	return tr
}

// online is a measure of row's online ID evaluation on env (the one
// which picks: under the run's decoder, or free) over the seeds, nil when
// the study has no such runs.
func (s *Summary) online(env, row string, which func(RowResult) *Online, measure func(*Online) float64) *Cell {
	xs := s.rowValues(env, row, func(r RowResult) float64 {
		if o := which(r); o != nil {
			return measure(o)
		}
		return math.NaN()
	})
	if len(xs) == 0 {
		return nil
	}
	c := cellOf(xs)
	return &c
}

// averageOf is, per seed, the mean of the averaged columns (NaN if any is
// missing).
func averageOf(perCol map[string][]float64, seeds int) []float64 {
	out := make([]float64, seeds)
	for i := range out {
		sum := 0.0
		for _, k := range averaged {
			xs := perCol[k]
			if i >= len(xs) {
				sum = math.NaN()
				break
			}
			sum += xs[i]
		}
		out[i] = sum / float64(len(averaged))
	}
	return out
}

// id is the row's ID evaluation under the run's decoder.
func (r RowResult) id() *Online { return r.ID }

// freeID is the row's ID evaluation decoded free: FreeID, or ID when the
// run itself decoded free (the repeated-failure count's).
func (r RowResult) freeID() *Online {
	if r.FreeID != nil {
		return r.FreeID
	}
	return r.ID
}
