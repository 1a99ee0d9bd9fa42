package governance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The guarded write is the only way to write through a connector. This test type-checks
// every non-test Go file of the repository and fails on any package other than
// shared/governance that
//
//   - refers to a Write method of a type declared in package connector (a call, a method
//     value such as f := c.Write, a method expression, or through an embedded field), or
//   - calls any function, method or func value that takes a connector.WriteRequest, which
//     catches an interface declared elsewhere that a *connector.Client is assigned to, and
//     governance.Writer obtained from Connectors outside the guard.
//
// Types come from go/types: module packages are checked from source, the standard library
// from its export data (one `go list -export` call), and third-party packages are stubbed,
// since the values that matter have types from package connector, which imports only the
// standard library. Files excluded by build constraints are checked too, each with the
// rest of its package.

func TestOnlyTheGuardWritesThroughConnectors(t *testing.T) {
	t.Parallel()
	root, modPath := moduleRoot(t)
	c := newArchChecker(map[string]string{modPath: root}, modPath+"/shared/connector", modPath+"/shared/governance")
	violations, allowed := c.check(t, root)
	for _, v := range violations {
		t.Errorf("%s", v)
	}
	t.Logf("%d connector write sites in shared/governance, %d elsewhere", allowed, len(violations))
	// The guard's own call must be seen, or the check is not looking at anything.
	if allowed == 0 {
		t.Fatal("the checker found no connector write at all, not even the guard's: it is broken")
	}
}

func TestArchitectureCheckerReportsBypasses(t *testing.T) {
	t.Parallel()
	root, modPath := moduleRoot(t)
	tmp := t.TempDir()
	const leak = "example.com/leak"
	conn := modPath + "/shared/connector"
	gov := modPath + "/shared/governance"
	prelude := func(pkg string, imports ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\n\t%q\n", pkg, conn)
		for _, i := range imports {
			fmt.Fprintf(&b, "\t%q\n", i)
		}
		b.WriteString(")\n\nvar _ = context.Background\n\n")
		return b.String()
	}
	files := map[string]struct {
		src  string
		want int // violations expected in this file
	}{
		"go.mod": {"module " + leak + "\n\ngo 1.26\n", 0},
		"direct/direct.go": {prelude("direct") + `
func Fix(ctx context.Context, reg *connector.Registry) error {
	c, err := reg.Client(ctx, "t1", connector.SystemHostERP)
	if err != nil {
		return err
	}
	_, err = c.Write(ctx, connector.WriteRequest{Entity: "salesOrder"})
	return err
}
`, 1},
		"field/field.go": {prelude("field") + `
type syncer struct{ client *connector.Client }

func (s *syncer) push(ctx context.Context) {
	_, _ = s.client.Write(ctx, connector.WriteRequest{})
}
`, 1},
		"embedded/embedded.go": {prelude("embedded") + `
type wrapped struct{ *connector.Client }

func push(ctx context.Context, w wrapped) {
	_, _ = w.Write(ctx, connector.WriteRequest{})
}
`, 1},
		"methodvalue/methodvalue.go": {prelude("methodvalue") + `
func push(ctx context.Context, c *connector.Client) {
	f := c.Write
	_, _ = f(ctx, connector.WriteRequest{})
}
`, 2}, // the method value and the call of it
		"methodexpr/methodexpr.go": {prelude("methodexpr") + `
func push(ctx context.Context, c *connector.Client) {
	_, _ = (*connector.Client).Write(c, ctx, connector.WriteRequest{})
}
`, 1},
		"iface/iface.go": {prelude("iface") + `
type writer interface {
	Write(context.Context, connector.WriteRequest) (connector.WriteResult, error)
}

func push(ctx context.Context, c *connector.Client) {
	var w writer = c
	_, _ = w.Write(ctx, connector.WriteRequest{})
}
`, 1},
		"viagov/viagov.go": {prelude("viagov", gov) + `
func push(ctx context.Context, reg *connector.Registry) {
	w, _ := governance.RegistryConnectors(reg).Client(ctx, "t1", connector.SystemCRM)
	_, _ = w.Write(ctx, connector.WriteRequest{})
}
`, 1},
		"tagged/tagged.go": {prelude("tagged") + `
func Get(ctx context.Context, c *connector.Client) { _, _ = c.Get(ctx, "a", "b") }
`, 0},
		"tagged/tool.go": {"//go:build ignore\n\n" + prelude("tagged") + `
func push(ctx context.Context, c *connector.Client) { _, _ = c.Write(ctx, connector.WriteRequest{}) }
`, 1},
		"clean/clean.go": {prelude("clean", "bytes", "os") + `
type note struct{}

func (note) Write(ctx context.Context, s string) error { return nil }

func read(ctx context.Context, c *connector.Client) {
	_, _ = c.Get(ctx, "contact", "C-1")
	_, _ = os.Stdout.Write([]byte("x"))
	var b bytes.Buffer
	_, _ = b.Write([]byte("x"))
	_ = note{}.Write(ctx, "x")
	_ = connector.WriteRequest{Entity: "built but not sent"}
}
`, 0},
		"clean/clean_test.go": {prelude("clean") + `
func push(ctx context.Context, c *connector.Client) { _, _ = c.Write(ctx, connector.WriteRequest{}) }
`, 0},
		"allowed/allowed.go": {prelude("allowed") + `
func push(ctx context.Context, c *connector.Client) { _, _ = c.Write(ctx, connector.WriteRequest{}) }
`, 0},
	}
	for name, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newArchChecker(map[string]string{leak: tmp, modPath: root}, conn, leak+"/allowed")
	violations, allowed := c.check(t, tmp)
	got := map[string]int{}
	for _, v := range violations {
		rel, err := filepath.Rel(tmp, v.file)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.ToSlash(rel)]++
	}
	for name, f := range files {
		if got[name] != f.want {
			t.Errorf("%s: %d violations reported, want %d", name, got[name], f.want)
		}
	}
	if allowed != 1 {
		t.Errorf("%d allowed write sites, want 1", allowed)
	}
	if t.Failed() {
		for _, v := range violations {
			t.Log(v)
		}
	}
}
