// Command train runs one experiment end to end (run) or a study
// of several (rl/study) and writes it to runs/<name>/: a supervised warm
// start of a small transformer policy on a scripted demonstrator, an
// evaluation of that base policy, RL (PPO, GRPO or GSPO, with or without
// the AREW margin) with evaluations every few updates, and a final
// evaluation, checkpoint and report. The command is its flags and one call.
//
//	go run ./cmd/train                        # the default: the study preset default (vanilla PPO vs AREW from the shipped base)
//	go run ./cmd/train -arew none -name vanilla -init runs/<run>/checkpoints/base.safetensors
//	go run ./cmd/train -algo grpo -model tiny -updates 20 -task pe-g-s3
//	go run ./cmd/train -config runs/<run>/config.json -name again   # repeat a run
//	go run ./cmd/train -study smoke           # arms × seeds from one base: summary.json, report.md, plots/
//	go run ./cmd/train -act act-table1        # the ACT table (rl/act): rows × environments × seeds
//	go run ./cmd/train -resume runs/<name>    # continue a run (a study, an ACT study, a capability or base build) that was stopped
//	go run ./cmd/train -resume runs/<name> -updates 200   # extend a finished run to 200 updates
//
// Flags override the -config file; `go run ./cmd/train -h` lists them.
// Exit status: 0 done, 1 a failure during the run, 2 bad input (flags,
// config, checkpoint), 130 interrupted (Ctrl-C or SIGTERM: the current
// update finishes, then a checkpoint set and the report are written, and
// -resume continues from them; an ACT study keeps its finished runs and
// -resume runs the cut one again; a -capability or -build-base build
// keeps a checkpoint set after every SFT epoch and -resume goes on from
// it; a second Ctrl-C quits at once, and every file
// written is still whole, since each is written to a temporary file and
// renamed).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"arew/rl"
	arewrun "arew/rl/run"
	"arew/rl/study"
	_ "arew/tasks/all"
)

const (
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal takes the default action: quit at once
		fmt.Fprintln(os.Stderr, "\ntrain: interrupted: finishing the current step, then writing what can be kept (Ctrl-C again to quit at once)")
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}

// interruption is the last line of an interrupted job that keeps no
// checkpoint set to -resume from (an ACT study's cut run, a build
// stopped in its first epoch; a build's, which it has): what it kept and
// how to go on.
type interruption struct{ line string }

func (e *interruption) Error() string { return e.line }

func (e *interruption) Unwrap() error { return arewrun.ErrInterrupted }

// run is the command without the process: it returns the exit status.
// afterUpdate, if not nil, is called after each RL update (tests).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, afterUpdate func(int)) int {
	if len(args) == 0 {
		args = []string{"-study", "default"}
	}
	inv, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && inv.cache != "" {
		var cache *arewrun.Cache
		if cache, err = arewrun.OpenCache(inv.cache); err == nil {
			ctx = arewrun.WithCache(ctx, cache)
		}
	}
	if err == nil && inv.jobs > 1 {
		ctx = arewrun.WithJobs(ctx, inv.jobs)
	}
	if err == nil && (inv.buildBase != "" || inv.resumeBuild == study.JobBuildBase) {
		err = runBuildBase(ctx, inv, stdout)
	} else if err == nil && (inv.act != "" || inv.resumeACT) {
		err = runACT(ctx, inv, stdout)
	} else if err == nil && inv.chooseLock != "" {
		var report string
		if _, report, err = study.LockChoice(inv.out, inv.chooseLock); err == nil {
			fmt.Fprint(stdout, report)
		}
	} else if err == nil && (inv.capability != "" || inv.resumeBuild == study.JobCapability) {
		err = runCapability(ctx, inv, stdout)
	} else if err == nil && (inv.study != "" || inv.resumeStudy) {
		err = runStudy(ctx, inv, stdout)
	} else if err == nil {
		var e *arewrun.Experiment
		if inv.resume != "" {
			e, err = arewrun.Resume(inv.resume, inv.resumeUpdates, stdout)
		} else {
			e, err = arewrun.New(inv.cfg, inv.out, stdout)
		}
		if err == nil {
			if len(inv.runFlags) > 0 {
				fmt.Fprintf(stdout, "note: run flags given (%s): this runs one experiment (run) with the defaults of -h, "+
					"not the default study; `go run ./cmd/train` alone runs the study, -study <preset> another one\n",
					strings.Join(inv.runFlags, " "))
			}
			if inv.sftFromInit {
				fmt.Fprintln(stdout, "note: -init without -sft-demos: no SFT warm start")
			}
			if afterUpdate != nil {
				e.OnUpdate = func(m rl.Metrics) { afterUpdate(m.Update) }
			}
			err = e.Run(ctx, inv.force)
		}
	}
	var input *arewrun.InputError
	var stop *interruption
	switch {
	case err == nil:
		return 0
	case errors.As(err, &input):
		fmt.Fprintln(stderr, "train:", err)
		return exitUsage
	case errors.As(err, &stop):
		fmt.Fprintln(stderr, "train:", stop)
		return exitInterrupted
	case errors.Is(err, arewrun.ErrInterrupted):
		fmt.Fprintln(stderr, "train: interrupted; the checkpoint and report are written")
		return exitInterrupted
	default:
		fmt.Fprintln(stderr, "train:", err)
		return exitFailure
	}
}
