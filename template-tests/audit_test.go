package templatetests

import (
	"strings"
	"testing"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

// pseudonymisesActors reports whether f writes the audit log (and so may pseudonymise an
// actor) or lists it (and so may pseudonymise the actor an auditor filters by).
func pseudonymisesActors(f blueprint.Function) bool {
	for _, g := range f.Tables {
		if g.Table.Name == blueprint.Audit.Name {
			return true
		}
	}
	return false
}

// isAuditPseudonymSecret reports whether a policy resource is the stage's pseudonym key.
func isAuditPseudonymSecret(r any) bool {
	ref, ok := r.(obj)["Ref"].(string)
	return ok && strings.HasPrefix(ref, "AuditPseudonymKey")
}

// Every stage has its own generated pseudonym key in Secrets Manager; exactly the functions
// that append to or list the audit log may read it, and no function configuration carries a
// key.
func TestAuditPseudonymKeyIsAGeneratedSecretOnlyAuditUsersRead(t *testing.T) {
	if stack.AuditPseudonymSecretEnv != platform.EnvAuditPseudonymSecret {
		t.Fatalf("the stack sets %s, the functions read %s", stack.AuditPseudonymSecretEnv, platform.EnvAuditPseudonymSecret)
	}
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::SecretsManager::Secret", 1)
		s.has(t, "AWS::SecretsManager::Secret", obj{
			"GenerateSecretString": obj{"PasswordLength": num(64), "ExcludePunctuation": true}})
		if strings.Contains(s.templateJSON(t), `"`+platform.EnvAuditPseudonymKey+`"`) {
			t.Fatalf("the template sets %s itself", platform.EnvAuditPseudonymKey)
		}
		writers := 0
		for _, f := range s.functions {
			reads := false
			for _, st := range s.statements(t, f.Name) {
				for _, a := range values(st["Action"]) {
					if a == "secretsmanager:GetSecretValue" {
						for _, r := range values(st["Resource"]) {
							reads = reads || isAuditPseudonymSecret(r)
						}
					}
				}
			}
			if reads != pseudonymisesActors(f) {
				t.Errorf("function %s reads the pseudonym key: %v, appends to or lists the audit log: %v", f.Name, reads, pseudonymisesActors(f))
			}
			if pseudonymisesActors(f) {
				writers++
			}
		}
		if writers == 0 {
			t.Fatal("no function appends to the audit log")
		}
	})
}
