// Package scripts holds the tests of make's shell scripts.
package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeLinker writes a linker that records each call in calls and writes its -o file with
// the content CONTENT names and its build ID (as the real one writes it into the program),
// or fails when FAIL is set.
func fakeLinker(t *testing.T, dir string) (tool, calls string) {
	t.Helper()
	tool, calls = filepath.Join(dir, "link"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$*" >> "` + calls + `"
[ -z "$FAIL" ] || exit 3
id=
while [ $# -gt 0 ]; do
	case "$1" in -o) out=$2 ;; -buildid=*) id=${1#-buildid=} ;; esac
	shift
done
printf '%s %s' "$CONTENT" "$id" > "$out"
chmod 755 "$out"
`
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return tool, calls
}

// linkcache runs the script as go's -toolexec would, with the cache in cache.
func linkcache(t *testing.T, cache string, env []string, args ...string) error {
	t.Helper()
	cmd := exec.Command("./linkcache", args...)
	cmd.Env = append(append(os.Environ(), "LINKCACHE="+cache), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("linkcache %s: %s", strings.Join(args, " "), out)
	}
	return err
}

func callCount(t *testing.T, calls string) int {
	raw, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(raw, []byte("\n"))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// content is what the fake linker was asked to write into the program at path.
func content(t *testing.T, path string) string {
	t.Helper()
	c, _, _ := strings.Cut(readFile(t, path), " ")
	return c
}

// TestLinkCacheKeysOnTheActionID: a link is run once per action ID (the build ID's first
// part) and its program handed back after; another ID links again; a failed link keeps
// nothing; a link without a build ID, or with the cache off, always runs.
func TestLinkCacheKeysOnTheActionID(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	link, calls := fakeLinker(t, dir)
	out := filepath.Join(dir, "prog")
	run := func(id, body string, env ...string) error {
		args := []string{link, "-o", out, "-importcfg", filepath.Join(dir, "cfg")}
		if id != "" {
			args = append(args, "-buildid="+id+"/main-action/main-content/"+id)
		}
		return linkcache(t, cache, append(env, "CONTENT="+body), append(args, "main.a")...)
	}
	if err := run("actionAAAAAAAAAAAAAAA", "first"); err != nil {
		t.Fatal(err)
	}
	if err := run("actionAAAAAAAAAAAAAAA", "second"); err != nil {
		t.Fatal(err)
	}
	if n, got := callCount(t, calls), content(t, out); n != 1 || got != "first" {
		t.Fatalf("same action ID twice: the linker ran %d times, the program is %q; want once and %q", n, got, "first")
	}
	if err := run("actionBBBBBBBBBBBBBBB", "other"); err != nil {
		t.Fatal(err)
	}
	if n, got := callCount(t, calls), content(t, out); n != 2 || got != "other" {
		t.Fatalf("another action ID: the linker ran %d times in all, the program is %q; want 2 and %q", n, got, "other")
	}
	if err := run("actionCCCCCCCCCCCCCCC", "broken", "FAIL=1"); err == nil {
		t.Fatal("a failed link succeeded through the cache")
	}
	if err := run("actionCCCCCCCCCCCCCCC", "fixed"); err != nil {
		t.Fatal(err)
	}
	if n, got := callCount(t, calls), content(t, out); n != 4 || got != "fixed" {
		t.Fatalf("after a failed link: the linker ran %d times, the program is %q; want 4 and %q (nothing kept)", n, got, "fixed")
	}
	if err := run("", "unkeyed"); err != nil {
		t.Fatal(err)
	}
	if err := run("", "unkeyed"); err != nil {
		t.Fatal(err)
	}
	if n := callCount(t, calls); n != 6 {
		t.Fatalf("without a build ID the linker ran %d times in all, want 6 (every time)", n)
	}
	cache = "off"
	if err := run("actionAAAAAAAAAAAAAAA", "off"); err != nil {
		t.Fatal(err)
	}
	if n, got := callCount(t, calls), content(t, out); n != 7 || got != "off" {
		t.Fatalf("LINKCACHE=off: the linker ran %d times, the program is %q; want 7 and %q", n, got, "off")
	}
	// A program kept cut off (a crash between the copy and its end) is linked again.
	kept, err := filepath.Glob(filepath.Join(dir, "cache", "*", "ac", "actionAAAAAAAAAAAAAAA"))
	if err != nil || len(kept) != 1 {
		t.Fatalf("the program kept under actionA: %v, %v", kept, err)
	}
	if err := os.WriteFile(kept[0], []byte("fir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cache = filepath.Join(dir, "cache")
	if err := run("actionAAAAAAAAAAAAAAA", "relinked"); err != nil {
		t.Fatal(err)
	}
	if n, got := callCount(t, calls), content(t, out); n != 8 || got != "relinked" {
		t.Fatalf("a cut-off program: the linker ran %d times, the program is %q; want 8 and %q", n, got, "relinked")
	}
	// A second -buildid (someone's ldflags) is what the linker uses: such a link is no key.
	two := func() error {
		return linkcache(t, cache, []string{"CONTENT=two"}, link, "-o", out,
			"-buildid=actionDDDDDDDDDDDDDDD/m/c/actionDDDDDDDDDDDDDDD", "-buildid=reproducible", "main.a")
	}
	if err := two(); err != nil {
		t.Fatal(err)
	}
	if err := two(); err != nil {
		t.Fatal(err)
	}
	if n := callCount(t, calls); n != 10 {
		t.Fatalf("two build IDs: the linker ran %d times in all, want 10 (every time)", n)
	}
	// Other tools run as they are asked, output and exit status included.
	cmd := exec.Command("./linkcache", "sh", "-c", "echo compiled; exit 7")
	got, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 || string(got) != "compiled\n" {
		t.Fatalf("another tool: %q, %v; want its own output and exit status 7", got, err)
	}
}

// TestLinkCacheThroughGo: the go command passes each link a build ID the cache keys on, so
// a program built twice is linked once, and a changed -X value is a new program.
func TestLinkCacheThroughGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program twice")
	}
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	src := "package main\n\nvar v = \"unset\"\n\nfunc main() { println(v) }\n"
	test := "package main\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) { t.Log(\"v is\", v) }\n"
	for name, body := range map[string]string{"go.mod": "module probe\n\ngo 1.22\n", "main.go": src, "main_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	self, err := filepath.Abs("linkcache")
	if err != nil {
		t.Fatal(err)
	}
	// noLinker hands linkcache a linker that is not there for each link (the go command's
	// question of the linker's version aside): a build through it succeeds only if every
	// link is a hit.
	noLinker := filepath.Join(dir, "nolinker")
	script := "#!/bin/sh\ncase \"$1 $2\" in */link\\ -V=full) ;; */link\\ *) shift; exec \"" + self + "\" /nonexistent/link \"$@\" ;; esac\n" +
		"exec \"" + self + "\" \"$@\"\n"
	if err := os.WriteFile(noLinker, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	build := func(value, out string, toolexec ...string) string {
		t.Helper()
		tool := self
		if len(toolexec) > 0 {
			tool = toolexec[0]
		}
		cmd := exec.Command("go", "build", "-toolexec="+tool, "-ldflags=-X main.v="+value, "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-trimpath", "LINKCACHE="+cache, "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		b, err := exec.Command(out).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", out, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	entries := func() int {
		n := 0
		_ = filepath.WalkDir(cache, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() != ".trimmed" {
				n++
			}
			return nil
		})
		return n
	}
	if got := build("one", filepath.Join(dir, "a")); got != "one" || entries() != 1 {
		t.Fatalf("first build printed %q with %d programs kept; want %q and 1", got, entries(), "one")
	}
	if got := build("one", filepath.Join(dir, "b"), noLinker); got != "one" || entries() != 1 {
		t.Fatalf("the same build again printed %q with %d programs kept; want %q and 1 (handed back)", got, entries(), "one")
	}
	if a, b := readFile(t, filepath.Join(dir, "a")), readFile(t, filepath.Join(dir, "b")); a != b {
		t.Fatal("the program handed back differs from the one linked")
	}
	if got := build("two", filepath.Join(dir, "c")); got != "two" || entries() != 2 {
		t.Fatalf("a changed -X value printed %q with %d programs kept; want %q and 2", got, entries(), "two")
	}
	// go test runs the test binary where the link wrote it: a program handed back must be
	// one the go command can run (CI run 187: a copy kept without its mode was not).
	goTest := func(tool string) {
		t.Helper()
		cmd := exec.Command("go", "test", "-count=1", "-v", "-toolexec="+tool, "-ldflags=-X probe.v=three", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-trimpath", "LINKCACHE="+cache, "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "v is three") {
			t.Fatalf("go test through %s: %v\n%s", filepath.Base(tool), err, b)
		}
	}
	goTest(self)
	goTest(noLinker)
}

// TestLinkCacheTrim: the trim keeps the cache under its bound, oldest use first, and a bound
// that is not a number fails nothing.
func TestLinkCacheTrim(t *testing.T) {
	cache := t.TempDir()
	write := func(name string, kib int, age time.Duration) string {
		p := filepath.Join(cache, "cc", name[:2], name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte{1}, kib*1024), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := write("stale-program", 4, 72*time.Hour)
	old := write("old-program", 700, 3*time.Hour)
	recent := write("recent-program", 700, time.Hour)
	for _, max := range []string{"6G", "1"} {
		if err := linkcache(t, cache, []string{"LINKCACHE_MAX_MB=" + max}, "--trim"); err != nil {
			t.Fatalf("LINKCACHE_MAX_MB=%s: %v", max, err)
		}
	}
	for p, want := range map[string]bool{stale: false, old: false, recent: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s kept = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
