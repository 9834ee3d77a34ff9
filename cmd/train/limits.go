package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"arew/engine"
	"arew/rl"
)

// Limits on what the command reads and runs, checked before the run
// folder is touched, so that hostile or mistyped input is one line and
// exit status 2, never an out-of-memory crash or a hang mid-run.
const (
	// maxConfigBytes caps a -config file (a run's config.json is ~3 KB).
	maxConfigBytes = 1 << 20
	// maxNameBytes caps a run name, well inside a file name's 255 bytes.
	maxNameBytes = 200
	// fallbackMemory is the memory assumed when the machine's is unknown.
	fallbackMemory = 16 << 30
)

// checkRun checks what the run folder and the machine must allow before
// e runs: the -out folder and the run folder are folders (or can be), and
// the run fits in memory.
func checkRun(e *experiment, out string) error {
	if err := checkFolder("-out", out); err != nil {
		return err
	}
	if st, err := os.Stat(e.dir); err == nil && !st.IsDir() {
		return usageErrorf("run folder %s exists and is not a folder", e.dir)
	}
	return checkMemory(e, machineMemory())
}

// checkFolder accepts a path that is a folder or can be made one: its
// nearest existing ancestor is a folder.
func checkFolder(flagName, path string) error {
	var first error // the first error other than "does not exist"
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir() && first != nil:
			return usageErrorf("%s %s: %v", flagName, path, first)
		case err == nil && st.IsDir():
			return nil
		case err == nil:
			return usageErrorf("%s %s: %s is a file, not a folder", flagName, path, p)
		case !os.IsNotExist(err) && first == nil:
			first = err // e.g. "not a directory" below a file: look further up
		}
		if parent := filepath.Dir(p); parent == p {
			if first != nil {
				return usageErrorf("%s %s: %v", flagName, path, first)
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

func estimateMemory(e *experiment) memoryNeed {
	c, pc, maxLen := e.cfg, e.policy.Config, e.rolloutMaxLen()
	var m memoryNeed
	if c.SFT.Demos > 0 {
		demos := float64(c.SFT.Demos) + float64(c.SFT.TestDemos)
		m.sft = c.SFT.Train.MemoryEstimate(pc, maxLen, int(min(demos, 1<<62)))
	}
	if c.Updates > 0 {
		if c.PPO != nil {
			m.update = c.PPO.MemoryEstimate(pc, maxLen)
		} else {
			m.update = c.GRPO.MemoryEstimate(pc, maxLen)
		}
	}
	ec := rl.EvalConfig{Episodes: c.Eval.Episodes, Rollout: c.rollout()}
	m.eval = ec.MemoryEstimate(pc, maxLen)
	return m
}

// checkMemory refuses a run whose estimate exceeds budget bytes, naming
// the phase and the sizes that drive it.
func checkMemory(e *experiment, budget float64) error {
	m := estimateMemory(e)
	if m.total() <= budget {
		return nil
	}
	c := e.cfg
	r := c.rollout()
	var what string
	switch max(m.sft, m.update, m.eval) {
	case m.sft:
		what = fmt.Sprintf("SFT on %d + %d demonstrations (-sft-demos, -sft-test-demos) in minibatches of %d needs %s",
			c.SFT.Demos, c.SFT.TestDemos, c.SFT.Train.MiniBatch, gib(m.sft))
	case m.update:
		var episodes float64
		if c.PPO != nil {
			episodes = float64(c.PPO.Episodes)
		} else {
			episodes = float64(c.GRPO.Prompts) * float64(c.GRPO.GroupSize) // may not fit an int
		}
		what = fmt.Sprintf("an update of %.0f episodes (-episodes) with %d decoder slots per worker (rollout.slots) needs %s",
			episodes, r.Slots, gib(m.update))
	default:
		what = fmt.Sprintf("an evaluation of %d episodes (-eval-episodes) with %d decoder slots per worker (rollout.slots) needs %s",
			c.Eval.Episodes, r.Slots, gib(m.eval))
	}
	return usageErrorf("the run would need about %s of memory, more than the %s this machine has: %s", gib(m.total()), gib(budget), what)
}

// gib writes a byte count in GiB, or TiB from 1 TiB on.
func gib(b float64) string {
	if b >= 1<<40 {
		return fmt.Sprintf("%.3g TiB", b/(1<<40))
	}
	return fmt.Sprintf("%.3g GiB", b/(1<<30))
}

// machineMemory is the machine's physical memory in bytes: MemTotal of
// /proc/meminfo where there is one, else fallbackMemory.
func machineMemory() float64 {
	data, err := engine.ReadFile("/proc/meminfo", 1<<16)
	if err != nil {
		return fallbackMemory
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			kb, err := strconv.ParseFloat(string(f[1]), 64)
			if err == nil && kb > 0 {
				return kb * 1024
			}
		}
	}
	return fallbackMemory
}
