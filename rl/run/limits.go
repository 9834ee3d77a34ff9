package run

import (
	"fmt"
	"os"
	"path/filepath"

	"arew/rl"
)

// Limits on what a run reads and runs, checked before the run folder is
// touched, so that hostile or mistyped input is a InputError (one line
// and exit status 2 in cmd/train), never an out-of-memory crash or a hang
// mid-run. A config file is capped by ReadConfigFile.

// maxNameBytes caps a run name, well inside a file name's 255 bytes.
const maxNameBytes = 200

// checkRun checks what the run folder and the machine must allow before
// e runs: the -out folder and the run folder are folders (or can be), and
// the run fits in memory.
func checkRun(e *Experiment, out string) error {
	if err := checkFolder("-out", out); err != nil {
		return err
	}
	if st, err := os.Stat(e.dir); err == nil && !st.IsDir() {
		return InputErrorf("run folder %s exists and is not a folder", e.dir)
	}
	return checkMemory(e, rl.MachineMemory())
}

// checkFolder accepts a path that is a folder or can be made one: its
// nearest existing ancestor is a folder.
func checkFolder(flagName, path string) error {
	var first error // the first error other than "does not exist"
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir() && first != nil:
			return InputErrorf("%s %s: %v", flagName, path, first)
		case err == nil && st.IsDir():
			return nil
		case err == nil:
			return InputErrorf("%s %s: %s is a file, not a folder", flagName, path, p)
		case !os.IsNotExist(err) && first == nil:
			first = err // e.g. "not a directory" below a file: look further up
		}
		if parent := filepath.Dir(p); parent == p {
			if first != nil {
				return InputErrorf("%s %s: %v", flagName, path, first)
			}
			return nil
		}
	}
}

// memoryNeed is the run's estimated peak memory, by phase (rl's
// MemoryEstimate methods; each phase's memory is counted as if all were
// held at once, an upper bound).
type memoryNeed struct{ sft, update, eval float64 }

func (m memoryNeed) total() float64 { return m.sft + m.update + m.eval }

func estimateMemory(e *Experiment) memoryNeed {
	c, pc, maxLen := e.cfg, e.policy.Config, e.rolloutMaxLen()
	var m memoryNeed
	if c.SFT.Demos > 0 {
		demos := float64(c.SFT.Demos) + float64(c.SFT.TestDemos)
		m.sft = c.SFT.Train.MemoryEstimate(pc, maxLen, int(min(demos, 1<<62)))
	}
	if c.Updates > 0 {
		m.update = c.Algorithm.MemoryEstimate(pc, maxLen)
	}
	ec := rl.EvalConfig{Episodes: c.Eval.Episodes, Rollout: *c.Rollout()}
	m.eval = ec.MemoryEstimate(pc, maxLen)
	return m
}

// checkMemory refuses a run whose estimate exceeds budget bytes, naming
// the phase and the sizes that drive it.
func checkMemory(e *Experiment, budget float64) error {
	m := estimateMemory(e)
	if m.total() <= budget {
		return nil
	}
	c := e.cfg
	r := c.Rollout()
	var what string
	switch max(m.sft, m.update, m.eval) {
	case m.sft:
		what = fmt.Sprintf("SFT on %d + %d demonstrations (-sft-demos, -sft-test-demos) in minibatches of %d needs %s",
			c.SFT.Demos, c.SFT.TestDemos, c.SFT.Train.MiniBatch, gib(m.sft))
	case m.update:
		what = fmt.Sprintf("an update of %.0f episodes (-episodes) with %d decoder slots per worker (rollout.slots) needs %s",
			c.EpisodesPerUpdate(), r.Slots, gib(m.update))
	default:
		what = fmt.Sprintf("an evaluation of %d episodes (-eval-episodes) with %d decoder slots per worker (rollout.slots) needs %s",
			c.Eval.Episodes, r.Slots, gib(m.eval))
	}
	return InputErrorf("the run would need about %s of memory, more than the %s this machine has: %s", gib(m.total()), gib(budget), what)
}

// gib writes a byte count in GiB, or TiB from 1 TiB on.
func gib(b float64) string {
	if b >= 1<<40 {
		return fmt.Sprintf("%.3g TiB", b/(1<<40))
	}
	return fmt.Sprintf("%.3g GiB", b/(1<<30))
}
