// Package study compares RL arms — AREW settings — trained from one base
// policy over several seeds, and writes the comparison: a summary scripts
// read, a report with mean ± std tables, and plots.
//
// # What one study runs
//
// A Config names a task, a base policy (a checkpoint, a base this package
// ships, or one built at the start by rl.NewBase), the arms (each an
// rl.AREW setting: vanilla is critiques "none"; StandardArms gives
// vanilla, arew = AS+BT, arew-as, arew-bt), the seeds, and one shared RL
// configuration (PPO, GRPO or GSPO). A study is a sweep: each arm × seed
// is one single run (run: the config, folder, loop and resume
// of `cmd/train`'s runs), one after another, seed by seed (each run
// already uses every core for its rollouts; a study stopped early holds
// every arm of its first seeds):
//
//  1. the base is loaded once (model.Load; a shipped base is first
//     written to <dir>/base.safetensors), so every run starts from the
//     same weights;
//  2. each run's config (runConfig) is the study's task with the arm's
//     task config, the study's RL config with the arm's changes, its AREW
//     and the seed, Init = the base, no SFT; its trainer is built from
//     them (PPO: a fresh critic drawn from the seed);
//  3. the run evaluates on the first Eval.Episodes validation instances
//     at update 0, every Eval.Every updates and after the last, greedy
//     and/or sampled at temperature 1, then (Eval.Test > 0) once on the
//     first Eval.Test test instances, both modes, always on the study's
//     task (an arm's critiques change what trains it, never what its
//     measures mean). Sampled evaluations draw from the run's seed, so
//     the arms of one seed meet the same instances and sampling streams —
//     a paired comparison;
//  4. the run's folder <dir>/<arm>/seed-<s>/ is a single run's:
//     config.json (its run.Config), metrics.jsonl (one rl.Metrics
//     per update), eval.jsonl (one run.EvalRecord per evaluation and
//     mode), samples.jsonl, tb/ (the same as TensorBoard events, verl's
//     tag names where verl logs the quantity: rl/run/tb.go),
//     provenance.json (run.Provenance: commit, kernel set, CPU, wall
//     time), report.md, and checkpoints/ (the base it started from, and
//     the trainer's whole state as a checkpoint set, saved after every
//     in-training evaluation, on an interrupt and at the end:
//     checkpoints/policy.safetensors is the run's last policy).
//
// The study is a run.Sweep of those runs: its folder holds study.json,
// provenance.json (each attempt's commit, kernel set, CPU and wall time)
// and console.log (what every attempt printed, status lines left out) as
// every sweep's. After each run <dir>/summary.json is rewritten; at the
// end (or when ctx is cancelled: the run in progress stops after its
// update) the summary, <dir>/report.md and <dir>/plots/*.svg are written.
// Every whole file is written atomically (engine.WriteFileAtomic,
// model.Save); the .jsonl logs are appended one line per write. Resume
// continues an interrupted study in its folder: the runs summary.json
// lists as complete are kept, a run cut short continues from its
// checkpoint set (run.ContinuesRL, run.Resume: the logs cut back to the
// set's update, bitwise, since the trainer's state is its weights, moments
// and update counter, rl/trainer_state.go), any other run is done again
// from the start, a base the study built is reused, a base build cut
// short goes on from the set it keeps after every epoch in
// base-build-checkpoint/ (removed once the base is saved), and the files
// end as one uninterrupted Run would have left them, wall times aside
// (TestResumeContinuesACutRunBitwise, TestResumeContinuesACutBaseBuild).
//
// # The summary
//
//	{"arms": {"vanilla": {"runs": [{"seed": 1, "base": M, "final": M,
//	   "updates_to": {"0.5": 120, "0.8": null}}, …]}, "arew": …}}
//
// with M = {"greedy": S, "sampled": S} and S holding success, as_proxy,
// evidence, i_as and c_bt (then reward, bt_proxy, turns, malformed), the
// means over the evaluated test instances; a measure a task does not
// define is null. updates_to[t] is the first evaluated update u whose
// sampled success reached t, null if none did: an upper bound on the true
// crossing, exact to within Eval.Every. final is null for a run that did
// not complete. Each run also carries its whole curve (every evaluation).
// The summary holds no wall times, so the same config gives the same file,
// byte for byte (TestStudyIsDeterministic): every random stream derives
// from the base seed and the run seeds, never from the worker count.
//
// # The report
//
// For each arm, phase (base, final) and mode, the mean and the sample
// standard deviation over the seeds,
//
//	x̄ = (1/n) Σ x_i,   s = sqrt( Σ (x_i − x̄)² / (n − 1) )
//
// summed in float64 (MeanStd; s is undefined, "–", for one seed), of the
// five measures; then updates-to-threshold per seed; then the plots.
//
// # The plots
//
// <measure>.svg overlays the arms' sampled evaluations against updates
// for one measure (thin: one seed; bold with dots: the mean over the seeds
// evaluated at that update; dashed: the scripted baselines). eval.svg has
// one panel per measure and mode, each arm's mean over seeds with a ±1
// standard deviation band; training.svg the per-update training curves
// (reward, approximate KL, entropy, clip fraction, margin size) from each
// run's metrics.jsonl, smoothed over 10 updates, with the same bands; and
// phase.svg every run's path in the exact (I_AS, C_BT) plane with the
// self-locking region drawn (docs/arew.md §3).
//
// # Shipped bases
//
// Bases maps a name to the recipe (an rl.BaseConfig) of a base policy that
// this package embeds as bases/<name>.safetensors: the "pretrained model"
// of the AREW studies, too slow to build inside a demo. BuildShipped
// rebuilds one from its recipe (`go run ./cmd/train -build-base <name>`),
// evaluates it under each of its sources' task variants beside the
// scripted policies, and reports whether the result is byte for byte the
// embedded file. flodial-easy-locked (FloDialEasyLocked) is the capable but
// locked base of docs/arew.md §6: it succeeds under the careful style and
// sits below the best constant answer under the hasty one
// (TestShippedBases checks it loads, has its recipe's architecture and
// fits its task variants). Bases also holds the lock candidates of
// docs/arew.md §8, step 3 (candidates.go: FloDial-Easy's locked recipe on
// another setting, q_BT ∈ LockQBT), which `-build-base` builds and
// evaluates the same way; only the one the rule chooses is shipped
// (Shipped), and a study naming an unshipped base fails, naming it.
//
// # Presets
//
// Presets maps a name to a function building its Config; `go run
// ./cmd/train -study <name>` runs one. smoke (Smoke) is the machinery's
// check, seconds on two cores (TestSmokeStudyWritesEveryOutput). default
// (Default, what `go run ./cmd/train` runs) and flodial (FloDial, the
// anchor's protocol: four arms × five seeds × 200 updates) train from the
// shipped flodial-easy-locked base under its hasty style, with one recipe
// (flodialRecipe) that docs/arew.md §6 states and justifies.
//
// # Suites: table1 and telecom
//
// A Suite is a preset of several studies, one per Setting (a task on its
// layout, its chosen base, its tuned vanilla and λ), since a study has one
// task and one base: table1 (Table 1, docs/arew.md §8 step 5: the seven
// settings × vanilla-tuned, AREW-AS, AREW-AS+BT × seeds 301–303) and
// telecom (solo and dual, vanilla-tuned and AREW). RunSuite runs the
// studies into <dir>/<study>/ one after another (resuming any already
// there) and writes <dir>/report.md in the paper's layout (Suite.Report).
// Each member is a preset of its own (table1-<setting>, telecom-solo,
// telecom-dual), and so are the tuning sweeps of a setting not yet tuned
// (tune-vanilla-<setting>, tune-lambda-<setting>). A member or a sweep
// that cannot run yet is refused by Preset with what it misses
// (Setting.Ready), and a suite with any such member runs nothing.
package study
