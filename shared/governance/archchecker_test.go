package governance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// archChecker finds calls that write through a connector outside the guard, by type-checking
// the module from source (TestOnlyTheGuardWritesThroughConnectors).

type violation struct {
	file string
	pos  token.Position
	pkg  string
	what string
}

func (v violation) String() string {
	return fmt.Sprintf("%s: package %s %s outside the guarded write; write through governance.Guard.Write", v.pos, v.pkg, v.what)
}

// moduleRoot finds the repository's go.mod above the test's directory.
func moduleRoot(t *testing.T) (dir, modulePath string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`)
				}
			}
			t.Fatalf("%s/go.mod has no module line", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// sourcePackage is a directory's Go files, parsed.
type sourcePackage struct {
	dir        string
	importPath string
	// files that match the default build context, by package name; others is the rest.
	files  map[string][]*ast.File
	others []*ast.File
}

type loaded struct {
	pkg   *types.Package
	info  *types.Info
	files []*ast.File
}

type archChecker struct {
	fset          *token.FileSet
	modules       map[string]string // module path → directory
	connectorPath string
	allowedPath   string
	exports       map[string]string // std import path → export data file
	std           types.Importer
	sources       map[string]*sourcePackage // by import path
	cache         map[string]*loaded
	loading       map[string]bool
}

func newArchChecker(modules map[string]string, connectorPath, allowedPath string) *archChecker {
	c := &archChecker{
		fset: token.NewFileSet(), modules: modules, connectorPath: connectorPath, allowedPath: allowedPath,
		exports: map[string]string{}, sources: map[string]*sourcePackage{}, cache: map[string]*loaded{},
		loading: map[string]bool{},
	}
	c.std = importer.ForCompiler(c.fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := c.exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	return c
}

// importPathOf maps a directory inside one of the modules to its import path.
func (c *archChecker) importPathOf(dir string) (string, bool) {
	best, bestPath := "", ""
	for mod, root := range c.modules {
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if len(root) > len(best) {
			best = root
			bestPath = path.Join(mod, filepath.ToSlash(rel))
		}
	}
	return bestPath, best != ""
}

// dirOf maps an import path of one of the modules to its directory.
func (c *archChecker) dirOf(importPath string) (string, bool) {
	best, bestDir := "", ""
	for mod, root := range c.modules {
		if importPath == mod || strings.HasPrefix(importPath, mod+"/") {
			if len(mod) > len(best) {
				best = mod
				bestDir = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(importPath, mod), "/")))
			}
		}
	}
	return bestDir, best != ""
}

func skipDir(name string) bool {
	switch name {
	case "node_modules", "build", "cdk.out", ".git", "testdata", "vendor":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// parseDir parses the non-test Go files of dir, or returns nil when there are none.
func (c *archChecker) parseDir(dir string) (*sourcePackage, error) {
	importPath, ok := c.importPathOf(dir)
	if !ok {
		return nil, fmt.Errorf("%s is in none of the modules", dir)
	}
	if sp, ok := c.sources[importPath]; ok {
		return sp, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sp := &sourcePackage{dir: dir, importPath: importPath, files: map[string][]*ast.File{}}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(c.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if match, err := build.Default.MatchFile(dir, name); err == nil && match {
			sp.files[f.Name.Name] = append(sp.files[f.Name.Name], f)
		} else {
			sp.others = append(sp.others, f)
		}
	}
	c.sources[importPath] = sp
	return sp, nil
}

// primary is the package name a directory's importable package has: the one most of its
// matching files declare, preferring anything over main.
func (sp *sourcePackage) primary() string {
	names := make([]string, 0, len(sp.files))
	for n := range sp.files {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if (a == "main") != (b == "main") {
			return b == "main"
		}
		if len(sp.files[a]) != len(sp.files[b]) {
			return len(sp.files[a]) > len(sp.files[b])
		}
		return a < b
	})
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

func (c *archChecker) typeCheck(importPath string, files []*ast.File) *loaded {
	conf := types.Config{Importer: c, Error: func(error) {}, FakeImportC: true}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	// Errors are expected (stubbed third-party packages) and do not stop the checker.
	pkg, _ := conf.Check(importPath, c.fset, files, info)
	return &loaded{pkg: pkg, info: info, files: files}
}

// load type-checks a module package from source, once.
func (c *archChecker) load(importPath string) (*loaded, error) {
	if l, ok := c.cache[importPath]; ok {
		return l, nil
	}
	if c.loading[importPath] {
		return nil, fmt.Errorf("import cycle through %s", importPath)
	}
	c.loading[importPath] = true
	defer delete(c.loading, importPath)
	dir, _ := c.dirOf(importPath)
	sp, err := c.parseDir(dir)
	if err != nil {
		return nil, err
	}
	l := c.typeCheck(importPath, sp.files[sp.primary()])
	c.cache[importPath] = l
	return l, nil
}

// Import implements types.Importer.
func (c *archChecker) Import(path string) (*types.Package, error) { return c.ImportFrom(path, "", 0) }

// ImportFrom implements types.ImporterFrom.
func (c *archChecker) ImportFrom(importPath, _ string, _ types.ImportMode) (*types.Package, error) {
	if importPath == "unsafe" {
		return types.Unsafe, nil
	}
	if _, ok := c.dirOf(importPath); ok {
		l, err := c.load(importPath)
		if err != nil {
			return nil, err
		}
		return l.pkg, nil
	}
	if isStd(importPath) {
		if p, err := c.std.Import(importPath); err == nil {
			return p, nil
		}
	}
	// A stub: uses of its members fail to type, which only matters for values whose
	// types come from it, and connector values never do.
	p := types.NewPackage(importPath, guessName(importPath))
	p.MarkComplete()
	return p, nil
}

func isStd(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

func guessName(importPath string) string {
	elems := strings.Split(importPath, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name, _, _ = strings.Cut(name, ".")
	name = strings.TrimPrefix(name, "go-")
	return strings.ReplaceAll(name, "-", "_")
}

// loadStdExports finds the export data of every standard package the files import, and
// of their dependencies, in one go list call.
func (c *archChecker) loadStdExports(t *testing.T, dir string) {
	seen := map[string]bool{}
	for _, sp := range c.sources {
		for _, fs := range sp.files {
			for _, f := range fs {
				c.collectStd(f, seen)
			}
		}
		for _, f := range sp.others {
			c.collectStd(f, seen)
		}
	}
	if len(seen) == 0 {
		return
	}
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}
	for p := range seen {
		args = append(args, p)
	}
	slices.Sort(args[5:])
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export of the standard library: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		p, f, _ := strings.Cut(sc.Text(), "\t")
		c.exports[p] = f
	}
}

func (c *archChecker) collectStd(f *ast.File, seen map[string]bool) {
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		if p != "C" && p != "unsafe" && isStd(p) {
			seen[p] = true
		}
	}
}

// check walks root and returns the violations and the number of write sites found in
// the allowed package.
func (c *archChecker) check(t *testing.T, root string) ([]violation, int) {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && (skipDir(d.Name()) || fileExists(filepath.Join(p, "go.mod"))) {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Parse the module packages every checked file may import, so that their standard
	// imports get export data too.
	for _, root := range c.modules {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if p != root && (skipDir(d.Name()) || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			if _, err := c.parseDir(p); err != nil {
				t.Fatal(err)
			}
			return nil
		})
	}
	c.loadStdExports(t, root)

	var out []violation
	allowed := 0
	report := func(importPath string, vs []violation) {
		if importPath == c.allowedPath {
			allowed += len(vs)
			return
		}
		out = append(out, vs...)
	}
	for _, dir := range dirs {
		sp, err := c.parseDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for name, files := range sp.files {
			var l *loaded
			if name == sp.primary() {
				if l, err = c.load(sp.importPath); err != nil {
					t.Fatal(err)
				}
			} else {
				l = c.typeCheck(sp.importPath, files)
			}
			report(sp.importPath, c.violations(sp.importPath, l, nil))
		}
		// A file outside the build context is checked with the package it belongs to.
		for _, f := range sp.others {
			files := append(slices.Clone(sp.files[f.Name.Name]), f)
			l := c.typeCheck(sp.importPath, files)
			report(sp.importPath, c.violations(sp.importPath, l, f))
		}
	}
	return out, allowed
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// violations lists the connector write sites in l, only those in file when it is set.
func (c *archChecker) violations(importPath string, l *loaded, only *ast.File) []violation {
	var out []violation
	// One site per line: c.Write(...) is both a use of the method and a call taking a
	// WriteRequest.
	type line struct {
		file string
		n    int
	}
	seen := map[line]bool{}
	add := func(pos token.Pos, what string) {
		p := c.fset.Position(pos)
		if seen[line{p.Filename, p.Line}] {
			return
		}
		seen[line{p.Filename, p.Line}] = true
		out = append(out, violation{file: p.Filename, pos: p, pkg: importPath, what: what})
	}
	for _, f := range l.files {
		if only != nil && f != only {
			continue
		}
		var calls []*ast.CallExpr
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if fn, ok := l.info.Uses[n].(*types.Func); ok && c.isConnectorWrite(fn) {
					add(n.Pos(), "uses "+fn.FullName())
				}
			case *ast.CallExpr:
				calls = append(calls, n)
			}
			return true
		})
		// After the idents, so that a line gets the more precise message.
		for _, call := range calls {
			tv, ok := l.info.Types[call.Fun]
			if !ok || tv.IsType() || tv.Type == nil {
				continue
			}
			if sig, ok := tv.Type.Underlying().(*types.Signature); ok && c.takesWriteRequest(sig) {
				add(call.Lparen, "calls a function taking connector.WriteRequest")
			}
		}
	}
	return out
}

func (c *archChecker) isConnectorWrite(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	return fn.Name() == "Write" && fn.Pkg() != nil && fn.Pkg().Path() == c.connectorPath && sig != nil && sig.Recv() != nil
}

func (c *archChecker) takesWriteRequest(sig *types.Signature) bool {
	params := sig.Params()
	for i := 0; i < params.Len(); i++ {
		t := types.Unalias(params.At(i).Type())
		for {
			switch u := t.(type) {
			case *types.Pointer:
				t = types.Unalias(u.Elem())
				continue
			case *types.Slice:
				t = types.Unalias(u.Elem())
				continue
			}
			break
		}
		if n, ok := t.(*types.Named); ok {
			obj := n.Obj()
			if obj.Pkg() != nil && obj.Pkg().Path() == c.connectorPath && obj.Name() == "WriteRequest" {
				return true
			}
		}
	}
	return false
}
