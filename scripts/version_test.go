package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionStampFollowsTheCode holds make's version stamp (make version, the Makefile's
// VERSION and BUILD_TIME) to the code the functions are built from: a commit that changes
// only docs keeps it, so no function is linked or deployed again; a change under shared/
// makes it -dirty, then its commit's own.
func TestVersionStampFollowsTheCode(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout: the stamp is dev")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		// The test's commits are its own: no one's signing key or hooks.
		cfg := []string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"}
		cmd := exec.Command("git", append(cfg, args...)...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "TZ=UTC")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	stamp := func() (version, buildTime string) {
		t.Helper()
		cmd := exec.Command("make", "-s", "--no-print-directory", "version")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make version: %v\n%s", err, out)
		}
		f := strings.Fields(string(out))
		if len(f) != 2 {
			t.Fatalf("make version printed %q, want the version and the build time", out)
		}
		return f[0], f[1]
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A clone of the committed tree, borrowing the objects: fast, and the checkout's own
	// changes stay out of it.
	if out, err := exec.Command("git", "clone", "-q", "--shared", root, dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	// The checkout's Makefile, committed in the clone if it differs: the test is of the
	// rules being worked on.
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	write("Makefile", string(mk))
	if git("status", "--porcelain", "Makefile") != "" {
		git("commit", "-q", "-m", "the checkout's Makefile", "Makefile")
	}
	code := git("log", "-1", "--format=%H", "--", "functions", "shared", "go.mod", "go.sum", "Makefile")
	want := git("describe", "--tags", "--always", code)
	v0, t0 := stamp()
	if v0 != want || t0 != git("log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ", code) {
		t.Fatalf("stamp %s %s on a clean clone, want %s and its commit's time", v0, t0, want)
	}

	write("README.md", "docs only\n")
	if v, bt := stamp(); v != v0 || bt != t0 {
		t.Errorf("a change to the README made the stamp %s %s, want %s %s", v, bt, v0, t0)
	}
	git("commit", "-q", "-am", "docs only")
	if v, bt := stamp(); v != v0 || bt != t0 {
		t.Errorf("a commit of the README made the stamp %s %s, want %s %s", v, bt, v0, t0)
	}

	write("shared/version/zz_stamp.go", "package version\n")
	git("add", "shared/version/zz_stamp.go")
	if v, _ := stamp(); v != v0+"-dirty" {
		t.Errorf("a change under shared/ made the stamp %s, want %s-dirty", v, v0)
	}
	git("commit", "-q", "-m", "code")
	if v, _ := stamp(); v != git("describe", "--tags", "--always", "HEAD") {
		t.Errorf("a commit under shared/ made the stamp %s, want its own %s", v, git("describe", "--tags", "--always", "HEAD"))
	}
}
