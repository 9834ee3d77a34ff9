package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An unstamped binary's code is its module's clean checkout's HEAD: a
// file changed or added, or a checkout of another module, names no code.
func TestCheckoutCommitNamesOnlyACleanCheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).Output()
		require.NoError(t, err, "git %v", args)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.org/m\n\ngo 1.26\n"), 0o644))
	git("add", "go.mod")
	git("commit", "-q", "-m", "m")
	t.Chdir(dir)

	head, err := checkoutCommit("example.org/m")
	require.NoError(t, err)
	assert.Equal(t, git("rev-parse", "HEAD"), head)
	_, err = checkoutCommit("arew")
	assert.ErrorContains(t, err, "not its module")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.go"), []byte("package m\n"), 0o644))
	_, err = checkoutCommit("example.org/m")
	assert.ErrorContains(t, err, "differs from its commit", "an untracked file")
	assert.Equal(t, head+"+dirty", gitCommit())
}

// A stamped binary records its stamp, whatever directory it runs in.
func TestStampedCommit(t *testing.T) {
	stamp := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	commit := func(s []debug.BuildSetting) string { return withDirty(stampedCommit(s)) }
	assert.Equal(t, "", commit(stamp("-tags", "gpu")))
	assert.Equal(t, "abc", commit(stamp("vcs", "git", "vcs.revision", "abc", "vcs.modified", "false")))
	assert.Equal(t, "abc+dirty", commit(stamp("vcs.modified", "true", "vcs.revision", "abc")))
}
