package templatetests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// cfnLintVersion is the cfn-lint the findings were reviewed with; `make aws-tools` installs
// it. Another version brings other rules and schemas, so the test says when it differs.
const cfnLintVersion = "1.51.0"

// TestCloudFormationLint runs AWS's own template linter, cfn-lint, against the
// CloudFormation resource schemas it bundles, over the template of each stage (dev, prod)
// and of prod with every option set (Bedrock, every identity setting, CORS, the console's
// sign-in, tracing): any error or warning fails, except
// what .cfnlintrc.yaml suppresses with a reason. The other configurations the tests build
// differ from these in a few properties; linting them too would cost about 9 s of CPU each.
func TestCloudFormationLint(t *testing.T) {
	// cfn-lint runs through cfn-lint.py (beside this file), which does once the work
	// cfn-lint repeats without changing a rule or a finding; it needs the Python that has
	// cfn-lint, which `make aws-tools` installs with python3 -m pip.
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is not installed: cfn-lint runs on it (`make aws-tools`)")
	}
	dir := t.TempDir()
	var files []string
	linted := map[string]string{}
	for _, l := range []*lazyStack{devStack, prodStack, configuredStack} {
		// The stack and its nested OnCall stack (the burn-rate alarms).
		for name, tpl := range map[string]obj{l.spec.name: l.get(t).templateDoc, l.spec.name + "-oncall": l.get(t).oncallDoc} {
			// Indented, so that a finding's line number points somewhere.
			raw, err := json.MarshalIndent(tpl, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			// A template byte for byte the same as one already listed (prod's OnCall stack
			// and the configured stack's: no option reaches it) would give the same
			// findings: linted once, under the first name.
			if first, ok := linted[string(raw)]; ok {
				t.Logf("%s is %s byte for byte: linted once", name, first)
				continue
			}
			linted[string(raw)] = name
			f := filepath.Join(dir, name+".template.json")
			if err := os.WriteFile(f, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	// One run for every template: cfn-lint's start (loading its schemas) is most of its time.
	// It runs beside the other tests: started here, then t.Parallel hands the test binary
	// back to the sequential tests (which keep jsii's Node busy) until they are done, and
	// only then is cfn-lint waited for. On two cores that takes its ~45 s of CPU off the
	// stage's wall time.
	// Last, a template with three known mistakes, each found on a path cfn-lint.py changes
	// (an enum's value, a GetAtt's resource and its attribute): the run must report exactly
	// these, so a wrapper that hid findings fails here.
	files = append(files, canaryTemplate)
	var out bytes.Buffer
	cmd := exec.Command(python, append([]string{"cfn-lint.py", "--config-file", "../.cfnlintrc.yaml", "--format", "parseable", "--"}, files...)...)
	// The run's first line is the version of the cfn-lint it runs (cfn-lint.py writes it
	// when asked so): the same answer as a `cfn-lint.py --version` beforehand, without a
	// second Python loading cfn-lint (2 CPU-s).
	cmd.Env = append(os.Environ(), cfnLintSayVersion+"=1")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("cfn-lint did not start: %v", err)
	}
	t.Parallel()
	if err := cmd.Wait(); err != nil {
		if _, exit := err.(*exec.ExitError); !exit {
			t.Fatalf("cfn-lint did not run: %v\n%s", err, out.String())
		}
	}
	version, findings, _ := strings.Cut(out.String(), "\n")
	if version != "cfn-lint "+cfnLintVersion {
		t.Fatalf("cfn-lint.py runs cfn-lint %q, want %s: the suppressions were reviewed against that version; run `make aws-tools`\n%s", version, cfnLintVersion, out.String())
	}
	var canary []string
	for _, line := range strings.Split(strings.TrimSpace(findings), "\n") {
		if rest, ok := strings.CutPrefix(line, canaryTemplate+":"); ok {
			// line:column:line:column:rule:message
			if f := strings.SplitN(rest, ":", 6); len(f) == 6 {
				canary = append(canary, strings.Join(f[:5], ":"))
				continue
			}
		}
		if line != "" {
			t.Error(strings.TrimPrefix(line, dir+"/"))
		}
	}
	if want := []string{"7:5:7:25:E3030", "14:77:14:86:E1010", "14:122:14:134:E1010"}; !slices.Equal(canary, want) {
		t.Errorf("cfn-lint found %v in %s, want %v:\n%s", canary, canaryTemplate, want, out.String())
	}
}

// cfnLintSayVersion set to 1 has cfn-lint.py write "cfn-lint <version>" as its first line.
const cfnLintSayVersion = "CFN_LINT_PY_SAY_VERSION"

// canaryTemplate holds an invalid ComparisonOperator, a GetAtt of a missing resource and a
// GetAtt of an attribute an SNS topic does not have.
const canaryTemplate = "testdata/cfnlint-canary.template.json"

// A function still waits for its grants: of the role's resources it depends on the policy
// (the role comes first through the GetAtt of its ARN, so repeating it is what cfn-lint
// flags).
func TestFunctionsDependOnTheirPolicyNotTheirRole(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		fns := s.resources(t, "AWS::Lambda::Function", nil)
		for _, f := range s.functions {
			fn := fns[s.functionID(t, f.Name)]
			role := fn["Properties"].(obj)["Role"].(obj)["Fn::GetAtt"].(arr)[0].(string)
			var policies []string
			for id, p := range s.resources(t, "AWS::IAM::Policy", nil) {
				for _, r := range p["Properties"].(obj)["Roles"].(arr) {
					if reflect.DeepEqual(r, ref(role)) {
						policies = append(policies, id)
					}
				}
			}
			var deps []string
			for _, d := range values(fn["DependsOn"]) {
				deps = append(deps, d.(string))
			}
			slices.Sort(deps)
			slices.Sort(policies)
			if len(policies) == 0 || !slices.Equal(deps, policies) {
				t.Errorf("%s depends on %v, want its role's policies %v", f.Name, deps, policies)
			}
		}
	})
}
