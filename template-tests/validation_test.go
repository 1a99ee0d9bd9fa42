package templatetests

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
)

func TestStacksHaveNoErrors(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		if errs := findMessages(s.messages, "error", nil); len(errs) > 0 {
			t.Errorf("synthesis errors: %v", errs)
		}
	})
}

// A blueprint mistake is reported by synthesis, naming the function, rather than becoming
// a template that fails in CloudFormation or, worse, deploys.
func TestBlueprintMistakesAreReported(t *testing.T) {
	bad := []blueprint.Function{{
		Name:     "confused",
		Route:    &blueprint.Route{Method: "FETCH", Path: "/x/{$}"},
		Schedule: 90 * time.Second,
		Tables:   []blueprint.TableGrant{{Table: &blueprint.Table{Name: "nowhere", EnvVar: "TABLE_NOWHERE"}, Access: blueprint.Read}},
		Timeout:  time.Second, MemoryMB: 128,
	}, {
		Name:    "unbounded",
		Queue:   &blueprint.Diagnosis,
		Timeout: time.Second, MemoryMB: 128,
	}}
	spec := synthesized{name: "invalid", stage: "Bad-Stage", tables: blueprint.Tables, queues: blueprint.Queues, functions: bad}
	s, err := synth(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`stage "Bad-Stage"`,
		`function "confused" has 2 triggers`,
		`route method "FETCH"`,
		`schedule 1m30s is not a whole number of minutes`,
		`undeclared table "nowhere"`,
		`uses {$}, which API Gateway cannot express`,
		`function "unbounded": maximum concurrency 0`,
	} {
		t.Run(want, func(t *testing.T) {
			s.hasMessage(t, "error", regexp.MustCompile(regexp.QuoteMeta(want)))
		})
	}
}

func TestCheckFunctionsDir(t *testing.T) {
	dir := t.TempDir()
	if err := stack.CheckFunctionsDir(dir, blueprint.Functions); err == nil {
		t.Fatal("empty directory passed")
	}
	for _, f := range blueprint.Functions {
		if err := os.MkdirAll(filepath.Join(dir, f.Name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name, "bootstrap"), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := stack.CheckFunctionsDir(dir, blueprint.Functions); err != nil {
		t.Fatal(err)
	}
}
