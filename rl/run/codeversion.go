package run

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"arew/kernels"
)

// CodeVersion names the code this process runs, for a result cache's keys
// (Cache): the commit it was built from, the Go version, the OS and
// architecture, and the kernel set that runs, since each can change the
// numbers. The commit is the binary's own VCS stamp (`go build` writes
// it), else, for an unstamped binary (`go run`, -buildvcs=false), the git
// HEAD of the working directory when that checkout is the binary's module
// (its go.mod names the module), which is what `go run` compiled. Code
// that no commit names is an error: no stamp and no such checkout, or
// files that differ from the commit (the stamp's vcs.modified; a tracked
// file changed or an untracked one not ignored in the checkout).
func CodeVersion() (string, error) {
	commit, err := commitOfBinary()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %s/%s %s", commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, kernels.Impl()), nil
}

// commitOfBinary is the commit the binary was built from (CodeVersion).
func commitOfBinary() (string, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", fmt.Errorf("the binary carries no build information")
	}
	switch rev, modified := stampedCommit(bi.Settings); {
	case rev != "" && modified:
		return "", fmt.Errorf("the binary was built from %s with modified files", rev)
	case rev != "":
		return rev, nil
	}
	return checkoutCommit(bi.Main.Path)
}

// checkoutCommit is the HEAD of the working directory's git checkout,
// which must be module's and hold no changes (CodeVersion).
func checkoutCommit(module string) (string, error) {
	head, dirty, top, err := checkout()
	switch {
	case err != nil:
		return "", fmt.Errorf("the binary has no VCS stamp and the working directory is no git checkout (%v)", err)
	case moduleOf(filepath.Join(top, "go.mod")) != module:
		return "", fmt.Errorf("the binary has no VCS stamp and the checkout %s is not its module %s", top, module)
	case dirty:
		return "", fmt.Errorf("the checkout %s differs from its commit %s (git status)", top, head)
	}
	return head, nil
}

// checkout is the working directory's git checkout: its HEAD, whether a
// file differs from it (git status: a tracked file changed, or one not
// tracked and not ignored), and its top folder; git gets two seconds.
func checkout() (head string, dirty bool, top string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	git := func(args ...string) string {
		out, gerr := exec.CommandContext(ctx, "git", args...).Output()
		if err == nil {
			err = gerr
		}
		return strings.TrimSpace(string(out))
	}
	top, head = git("rev-parse", "--show-toplevel"), git("rev-parse", "HEAD")
	dirty = git("status", "--porcelain") != ""
	return head, dirty, top, err
}

// moduleOf is the module path a go.mod declares ("" if none).
func moduleOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
