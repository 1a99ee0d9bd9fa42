package ai

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyGovernedCallsProviders proves the rule that a provider is reached only through
// Governed. Outside this package the language enforces it (the operations are unexported
// methods); inside it, this test does: the only calls of chat, suggest and assessQuality
// on a provider are in governed.go, and in the wrappers of provider.go that forward a call
// Governed made (FuncProvider and Observe).
func TestOnlyGovernedCallsProviders(t *testing.T) {
	ops := map[string]bool{"chat": true, "suggest": true, "assessQuality": true}
	allowed := map[string]bool{"governed.go": true, "provider.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seenGoverned := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !ops[sel.Sel.Name] {
				return true
			}
			if !allowed[f] {
				t.Errorf("%s: %s calls a provider operation outside Governed", fset.Position(call.Pos()), sel.Sel.Name)
			}
			if f == "governed.go" {
				seenGoverned++
			}
			return true
		})
	}
	if seenGoverned != 3 {
		t.Errorf("governed.go makes %d provider calls, want 3 (suggest, assessQuality, chat); update this test with the design", seenGoverned)
	}
}

// TestProviderOperationsAreUnexported guards the other half of the rule: an exported
// operation on Provider would let any package call a provider.
func TestProviderOperationsAreUnexported(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "provider.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	ast.Inspect(file, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Provider" {
			return true
		}
		found = true
		for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
			for _, name := range m.Names {
				if name.IsExported() && name.Name != "Name" {
					t.Errorf("Provider.%s is exported", name.Name)
				}
			}
		}
		return false
	})
	if !found {
		t.Fatal("no Provider interface in provider.go")
	}
}
