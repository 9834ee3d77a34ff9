// Package run is the run layer: one RL run end to end, into its run
// folder. It is `cmd/train`'s single run, and each run of a study
// (rl/study sweeps arms × seeds of them); it owns the run folder's
// contract, the config and its validation, the RL loop (Loop: updates,
// evaluations, bitwise resume), the checkpoint sets (checkpoint.go: a
// trainer's state files under a manifest, replaced atomically), the log
// records (EvalRecord, Measures, Baseline, transcripts; records.go), the
// reports, the errors (ErrInterrupted, InputError) and the provenance.
// The sweeps of runs, rl/study's and ACT's (rl/act), are each one Sweep
// (sweep.go: the cells in order, one after another or several at once
// under WithJobs, each in its folder, the complete ones kept and a cut run
// continued on a resume, progress, interrupts,
// provenance and console.log; with a result cache, Cache, the cells
// another sweep made under the same config and code copied instead of
// run) and write through the same pieces: the
// files (write.go: atomic writes, JSON-lines logs, bounded reads), the
// statistics over seeds (MeanStd, PairedOf), the tables (MarkdownTable,
// Fixed) and the plots (plot.go, drawn as SVG by package chart).
//
// # What one run does
//
// A Config names a task, a policy (a model preset with fresh weights from
// the seed, or an Init checkpoint), an optional SFT warm start on a
// scripted demonstrator, the RL algorithm and its config (rl.Algorithm:
// the algo named, its config, and the trainer it builds), the number of
// updates and the evaluations. New checks all of it before the folder is
// touched (every user error is a InputError: an unknown task, a
// checkpoint that does not fit, a size that would not fit in memory), and
// Run then goes through the phases:
//
//  1. SFT (rl.SFT.Train, one callback per epoch: the log line, sft.jsonl)
//     and base.safetensors, the policy RL starts from;
//  2. the task's scripted policies on the evaluation's instances, for
//     scale (ScriptedBaselines), if Eval.Baselines;
//  3. RL, through the run layer's loop (Loop, the same for every run of
//     a study): an evaluation of the base on the
//     first Eval.Episodes validation instances, greedy and/or sampled at
//     temperature 1 (Eval.Split: validation unless train); the updates
//     of one rl.Trainer, one metrics.jsonl line and TensorBoard events
//     each; an evaluation and a checkpoint set every Eval.Every updates
//     and after the last (that set is kept, so -updates can extend the
//     run); with Eval.Test > 0 the final numbers on the first Eval.Test
//     test instances, both modes, the only read of the test split; then
//     report.md. Eval.TaskConfig, if set, is the task the evaluations
//     play (a study's arms train on their own critiques and are all
//     measured by one rule).
//
// Each evaluation also writes its first SamplesPerEval episodes to
// samples.jsonl as transcripts (Samples), and report.md shows the
// latest sampled ones beside the count of optimiser steps skipped for a
// non-finite loss or gradient.
//
// # Stopping and resuming
//
// When ctx is cancelled the run stops between two steps, writes its
// checkpoint set (SaveState; before RL, the policy's) and
// report, and returns ErrInterrupted. Resume continues it from that
// set: its config.json is the config (with another number of updates, a
// finished run is extended), the set must agree with its manifest, and
// Loop.Resume restores the trainer and cuts the logs back to what the
// set holds (read through the bounded reader before anything is written),
// then appends to them. Since a trainer's whole state is in the set, the
// result is bitwise the run that was never stopped, timings aside
// (cmd/train TestResumeEqualsOneRun; rl TestResumeIsBitwise). A failure
// or a divergence keeps the last set written: a failure may come in the
// middle of an update, whose state belongs to no one update.
package run
