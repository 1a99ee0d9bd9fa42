// Package functions_test holds the architecture rules every function's main must keep.
package functions_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/navcounts"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/consolesite"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/syncerror/ingestwire"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

const module = "github.com/syncassist/syncassist/"

// features are the feature packages (each with its sub-packages). Everything else under
// shared/ is platform and may import no feature.
var features = []string{"shared/syncerror", "shared/finance", "shared/toolcatalog", "shared/flow", "shared/settings", "shared/navcounts"}

// reads are the only feature-to-feature imports: the tool catalogue's integration_status
// tool lists the sync-error queue's processed rows, and a flow run that fails for good is
// claimed as a sync error through the queue's claim path; the console's nav badges count
// the queue's and finance's pending rows through their stores.
var reads = map[string][]string{"shared/toolcatalog": {"shared/syncerror"}, "shared/flow": {"shared/syncerror"},
	"shared/navcounts": {"shared/finance", "shared/syncerror"}}

func featureOf(pkg string) string {
	rel := strings.TrimPrefix(pkg, module)
	for _, f := range features {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return f
		}
	}
	return ""
}

// deps lists each package matching patterns with every package it links.
func deps(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, patterns...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		m[f[0]] = f[1:]
	}
	return m
}

// linkedFeatures are the features a package links, in order.
func linkedFeatures(ds []string) []string {
	var out []string
	for _, d := range ds {
		if f := featureOf(d); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// A function's main links its own feature only (and what that feature reads): the
// feature whose entry point it starts; a platform entry point's main links none.
func TestEachFunctionLinksOnlyItsOwnFeature(t *testing.T) {
	all := deps(t, "../functions/...")
	if len(all) < len(blueprint.Functions) {
		t.Fatalf("go list found %d functions, the blueprint has %d", len(all), len(blueprint.Functions))
	}
	delete(all, module+"functions") // this test
	for pkg, ds := range all {
		name := strings.TrimPrefix(pkg, module+"functions/")
		own := ""
		if call, imports := mainCall(t, filepath.Join(name, "main.go")); call != nil {
			pkgName, _, _ := strings.Cut(selector(call.Args[1]), ".")
			own = featureOf(imports[pkgName])
		}
		for _, f := range linkedFeatures(ds) {
			if f != own && !slices.Contains(reads[own], f) {
				t.Errorf("function %s (feature %q) links %s: a function links its own feature only", name, own, f)
			}
		}
	}
}

// Platform packages know no feature.
func TestPlatformImportsNoFeature(t *testing.T) {
	for pkg, ds := range deps(t, "../shared/...") {
		if featureOf(pkg) != "" {
			continue
		}
		if linked := linkedFeatures(ds); len(linked) > 0 {
			t.Errorf("platform package %s links feature %v", strings.TrimPrefix(pkg, module), linked)
		}
	}
	for pkg, ds := range deps(t, "../shared/...") {
		f := featureOf(pkg)
		if f == "" {
			continue
		}
		for _, other := range linkedFeatures(ds) {
			if other != f && !slices.Contains(reads[f], other) {
				t.Errorf("%s links feature %s", strings.TrimPrefix(pkg, module), other)
			}
		}
	}
}

// routeBuilders are what an HTTP function's main may pass to platform.StartHTTP or
// platform.StartSigned.
var routeBuilders = map[string]platform.RoutesFunc{
	"platform.PlatformRoutes": platform.PlatformRoutes,
	"consolesite.Routes":      consolesite.Routes,
	"guarded.Routes":          guarded.Routes,
	"syncerrorwire.Routes":    syncerrorwire.Routes,
	"ingestwire.Routes":       ingestwire.Routes,
	"finance.Routes":          finance.Routes,
	"toolcatalog.Routes":      toolcatalog.Routes,
	"toolcatalog.ListRoutes":  toolcatalog.ListRoutes,
	"flowwire.EventRoutes":    flowwire.EventRoutes,
	"adminwire.Routes":        adminwire.Routes,
	"navcounts.Routes":        navcounts.Routes,
	"settings.Routes":         settings.Routes,
}

// Every HTTP function's main serves its own route from the routes it builds, and every
// function's main names its own blueprint entry.
func TestEachMainServesItsOwnRoute(t *testing.T) {
	consts := blueprintConsts(t)
	env := map[string]string{"STAGE": "arch"}
	cfg, err := platform.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b := platform.New(cfg, aws.Config{Region: "us-east-1"}, func(k string) string { return env[k] })
	for _, f := range blueprint.Functions {
		t.Run(f.Name, func(t *testing.T) {
			if f.Name == blueprint.FuncOpenAPI {
				return // a static document from its own main, without the platform
			}
			call, _ := mainCall(t, filepath.Join(f.Name, "main.go"))
			if call == nil {
				t.Fatal("main does not call platform.StartHTTP, platform.StartSigned or platform.Start")
			}
			if name := consts[selector(call.Args[0])]; name != f.Name {
				t.Fatalf("main starts %q (%s), want %q", name, selector(call.Args[0]), f.Name)
			}
			if want := startFor(f); selector(call.Fun) != want {
				t.Fatalf("%s started with %s, want %s", f.Name, selector(call.Fun), want)
			}
			if f.Route == nil {
				return
			}
			build, ok := routeBuilders[selector(call.Args[1])]
			if !ok {
				t.Fatalf("main builds routes with %s, not a feature's Routes", selector(call.Args[1]))
			}
			routes, err := build(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := routes[f.Name]; !ok {
				t.Fatalf("%s has no route for %s", selector(call.Args[1]), f.Name)
			}
		})
	}
}

// startFor is how f's main starts: a route that verifies its caller itself (host-signed,
// service token, public) with platform.StartSigned, whose binary links no operator
// authentication; another route with platform.StartHTTP; a queue or schedule with
// platform.Start.
func startFor(f blueprint.Function) string {
	switch {
	case f.Route == nil:
		return "platform.Start"
	case platform.CallerVerified(f.Route.Auth):
		return "platform.StartSigned"
	}
	return "platform.StartHTTP"
}

// mainCall finds the platform.Start, StartHTTP or StartSigned call in a main, and the main's
// imports by package name.
func mainCall(t *testing.T, file string) (*ast.CallExpr, map[string]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	var found *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && strings.HasPrefix(selector(c.Fun), "platform.Start") && len(c.Args) == 2 {
			found = c
		}
		return found == nil
	})
	return found, imports
}

func selector(e ast.Expr) string {
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	if s, ok := e.(*ast.SelectorExpr); ok {
		if id, ok := s.X.(*ast.Ident); ok {
			return id.Name + "." + s.Sel.Name
		}
	}
	return ""
}

// blueprintConsts maps "blueprint.FuncX" to the function name it holds.
func blueprintConsts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join("..", "shared", "blueprint", "*.go"))
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if v, ok := n.(*ast.ValueSpec); ok && len(v.Values) == len(v.Names) {
				for i, name := range v.Names {
					if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out["blueprint."+name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
			return true
		})
	}
	return out
}
