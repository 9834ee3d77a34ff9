package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"arew/rl/act"
	arewrun "arew/rl/run"
	"arew/rl/study"
)

// job is a flag that names a job other than one run: its value, the flags
// it takes (-resume's depend on its folder: resumeInvocation) and its
// usage in -h. A command line names one job at most; one run takes
// -config, -out, -force and the run flags.
type job struct {
	flag, value string
	takes       []string
	usage       string
}

// jobs is every job, in the order -h lists them.
func jobs() []job {
	return []job{
		{"study", "string", []string{"out", "force", "name", "init", "study-config", "cache", "jobs"},
			"run a study preset instead of one run (presets: " + strings.Join(study.PresetNames(), ", ") + "): its arms × seeds " +
				"from one base, into <out>/<name>/ (summary.json, report.md, plots/, <arm>/seed-<s>/); -name names its folder, -init its base checkpoint"},
		{"resume", "folder", nil, "continue a study or a run in its folder: a study (study.json; with -cache only) keeps its complete runs " +
			"and goes on with the others from their last checkpoints (an ACT study does its others again); a run (config.json) goes on " +
			"from its last checkpoint to its updates; both bitwise as if never stopped, appending to the logs; a run with -updates N goes to N updates; " +
			"a capability or base build (base-checkpoint/) goes on from its last finished SFT epoch, bitwise, and is then evaluated"},
		{"build-base", "string", []string{"out", "force", "name"}, "rebuild a shipped base (" + strings.Join(study.ShippedNames(), ", ") +
			") or build a lock candidate of docs/arew.md §8 (" + strings.Join(study.CandidateNames(), ", ") + ") into <out>/<name>/ (a checkpoint set after every epoch in base-checkpoint/: -resume goes on from it) and evaluate it under each of its styles " +
			"beside the scripted policies (report.md, summary.json); says whether it is byte for byte the shipped file"},
		{"capability", "string", []string{"out", "force", "name"}, "train the plain policy by SFT on a setting's strong demonstrations (" +
			strings.Join(study.CapabilityNames(), ", ") + ") into <out>/capability-<name>/ (a checkpoint set after every epoch in base-checkpoint/: -resume goes on from it) " +
			"and evaluate it beside the strong policy on 500 validation instances"},
		{"choose-lock", "setting", []string{"out"}, "apply the lock rule of docs/arew.md §8, step 3, to a setting's lock candidates (" +
			strings.Join(study.LockSettings(), ", ") + ") as -build-base wrote them under <out> (-out docs/results reads the committed ones): " +
			"print each candidate's verdict and the pick"},
		{"act", "string", []string{"out", "force", "name", "cache", "jobs"}, "run an ACT preset (rl/act; presets: " + strings.Join(act.StudyPresetNames(), ", ") +
			"): the pipeline's rows × environments × seeds into <out>/<name>/ (summary.json, report.md, plots/, <env>/seed-<s>/)"},
	}
}

// flagDoc is one flag's entry in -h.
type flagDoc struct{ section, name, kind, usage string }

// commonFlags are the flags neither a job nor a run flag.
var commonFlags = []flagDoc{
	{"", "config", "string", "a run's config.json (or any subset of it) to start from; repeat a run: -config runs/<name>/config.json -name <new>"},
	{"", "out", "string", `folder holding the run folders (default "runs")`},
	{"", "force", "", "replace the run folder if it exists and is not empty"},
	{"", "study-config", "string", `JSON decoded onto the preset, inline or a file: a study's study.json repeats it; '{"seeds": [1, 2, 3]}' varies it`},
	{"", "cache", "folder", "a result cache of study runs (off by default): a run of -study, -act or a study's -resume that the cache holds " +
		"with the same config, seed and code (a clean commit) is copied from it instead of run; every run made is stored"},
	{"", "jobs", "int", "how many runs of -study, -act or a study's -resume run at once (default 1); the results are the same " +
		"whatever the number; it pays where one run leaves a core idle (table1's 42 runs: 1 h 01 min with -jobs 2 on 2 cores)"},
}

// printUsage is -h: what the command does, then every flag (the common
// ones, the jobs, the run flags in docs by section).
func printUsage(w io.Writer, docs []flagDoc) {
	fmt.Fprint(w, `Usage: go run ./cmd/train [flags]

With no flags (or only -out and -force), runs the study preset
"default": vanilla PPO and AREW from the shipped locked base, one seed,
and the comparison table.
With run flags, runs one experiment (SFT warm start, evaluation of the
base, RL with evaluations, final evaluation) and writes <out>/<name>/:
config.json, sft.jsonl, metrics.jsonl, eval.jsonl, samples.jsonl,
checkpoints/, report.md. Flags override the -config file. Exit status:
0 done, 1 failure, 2 bad input, 130 interrupted (a run or a study writes
a checkpoint set and the report, and -resume <out>/<name> continues it;
an ACT study keeps its finished runs; a -capability or -build-base
build keeps a checkpoint set after every SFT epoch, which -resume
continues).

`)
	all := slices.Clone(commonFlags)
	for _, j := range jobs() {
		if j.takes != nil {
			j.usage += "; takes only " + flagList(j.takes)
		}
		all = append(all, flagDoc{"", j.flag, j.value, j.usage})
	}
	last := ""
	for _, d := range append(all, docs...) {
		if d.section != last {
			fmt.Fprintf(w, "\n%s:\n", d.section)
			last = d.section
		}
		fmt.Fprintf(w, "  -%-20s %s\n", strings.TrimSpace(d.name+" "+d.kind), strings.Join(wrap(d.usage, 72), "\n"+strings.Repeat(" ", 24)))
	}
}

// wrap breaks text at spaces into lines of at most width bytes (a longer
// word stands alone).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines, line = append(lines, line), ""
		}
		line = strings.TrimPrefix(line+" "+word, " ")
	}
	return append(lines, line)
}

// flagList is "-a, -b and -c".
func flagList(names []string) string {
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = "-" + n
	}
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// refused are the flags given that a job does not take, sorted, each
// with its dash.
func refused(given map[string]bool, job string, takes ...string) []string {
	var bad []string
	for name := range given {
		if name != job && !slices.Contains(takes, name) {
			bad = append(bad, "-"+name)
		}
	}
	slices.Sort(bad)
	return bad
}

// takesOnly is a usage error naming the flags given that job does not
// take, or nil.
func takesOnly(given map[string]bool, job string, takes []string) error {
	if bad := refused(given, job, takes...); len(bad) > 0 {
		return arewrun.InputErrorf("-%s takes only %s; got %s", job, flagList(takes), strings.Join(bad, ", "))
	}
	return nil
}
