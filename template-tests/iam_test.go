package templatetests

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
)

var (
	dynamoWrites = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
	dynamoReads  = []string{"dynamodb:GetItem", "dynamodb:Query"}
	sqsSend      = []string{"sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"}
	logWrites    = []string{"logs:CreateLogStream", "logs:PutLogEvents"}
	xrayWrites   = []string{"xray:PutTelemetryRecords", "xray:PutTraceSegments"} // sorted, as the template lists them
	sqsConsume   = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"}
)

// statements returns the statements of every IAM policy attached to a function's role.
func (s *synthesized) statements(t *testing.T, fnName string) []obj {
	t.Helper()
	fn := s.resources(t, "AWS::Lambda::Function", nil)[s.functionID(t, fnName)]
	role := fn["Properties"].(obj)["Role"].(obj)["Fn::GetAtt"].(arr)[0].(string)
	var out []obj
	for _, p := range s.resources(t, "AWS::IAM::Policy", nil) {
		if !slices.ContainsFunc(p["Properties"].(obj)["Roles"].(arr), func(r any) bool { return reflect.DeepEqual(r, ref(role)) }) {
			continue
		}
		for _, st := range p["Properties"].(obj)["PolicyDocument"].(obj)["Statement"].(arr) {
			out = append(out, st.(obj))
		}
	}
	return out
}

// values reads an IAM Action or Resource, which may be one value or a list.
func values(v any) []any {
	if l, ok := v.(arr); ok {
		return l
	}
	return []any{v}
}

// referencedIDs lists the logical ids an expression refers to through Ref or Fn::GetAtt.
func referencedIDs(v any) []string {
	var out []string
	switch e := v.(type) {
	case obj:
		if r, ok := e["Ref"].(string); ok && !strings.HasPrefix(r, "AWS::") {
			out = append(out, r)
		}
		if ga, ok := e["Fn::GetAtt"].(arr); ok {
			out = append(out, ga[0].(string))
		}
		for k, x := range e {
			if k != "Ref" && k != "Fn::GetAtt" {
				out = append(out, referencedIDs(x)...)
			}
		}
	case arr:
		for _, x := range e {
			out = append(out, referencedIDs(x)...)
		}
	}
	return out
}

// Each function's policies name only the tables and queues its blueprint entry lists, with
// only the actions its access level allows, and every listed grant is really there.
func TestFunctionPoliciesFollowBlueprintGrants(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		tableByID, queueByID := map[string]string{}, map[string]string{}
		for _, tb := range s.tables {
			tableByID[s.tableID(t, tb.Name)] = tb.Name
		}
		for _, q := range s.queues {
			queueByID[s.queueID(t, q.Name)] = q.Name
		}

		secretsKey := s.secretsKeyID(t)
		alertBus := ""
		if buses := s.resources(t, "AWS::Events::EventBus", nil); len(buses) == 1 {
			alertBus = s.resourceID(t, "AWS::Events::EventBus", nil)
		}
		for _, f := range s.functions {
			t.Run(f.Name, func(t *testing.T) {
				access := map[string]blueprint.Access{}
				for _, g := range f.Tables {
					access[g.Table.Name] = g.Access
				}
				queueActions := map[string][]string{}
				for _, q := range f.SendsTo {
					queueActions[q.Name] = append(queueActions[q.Name], sqsSend...)
				}
				if f.Queue != nil {
					queueActions[f.Queue.Name] = append(queueActions[f.Queue.Name], sqsConsume...)
				}

				logGroup := s.logGroupID(t, f.Name)
				granted := map[string][]string{} // resource name -> actions granted on it
				for _, st := range s.statements(t, f.Name) {
					if st["Effect"] != "Allow" {
						continue
					}
					var actions []string
					for _, a := range values(st["Action"]) {
						actions = append(actions, a.(string))
					}
					for _, a := range actions {
						if a == "*" || strings.HasSuffix(a, ":*") {
							t.Errorf("wildcard action %q", a)
						}
					}
					for _, r := range values(st["Resource"]) {
						if r == "*" {
							t.Errorf("actions %v on every resource", actions)
						}
						for _, id := range referencedIDs(r) {
							switch {
							case tableByID[id] != "":
								name := tableByID[id]
								if access[name] == 0 {
									t.Errorf("policy mentions table %s, which %s has no grant for", name, f.Name)
								}
								for _, a := range actions {
									if !strings.HasPrefix(a, "dynamodb:") {
										t.Errorf("%s on table %s", a, name)
									}
									if access[name] == blueprint.Read && slices.Contains(dynamoWrites, a) {
										t.Errorf("%s on read-only table %s", a, name)
									}
									// Append writes new items only: it may not read, change or delete.
									if access[name] == blueprint.Append && a != "dynamodb:PutItem" && a != "dynamodb:DescribeTable" {
										t.Errorf("%s on append-only table %s", a, name)
									}
									if (access[name] == blueprint.KeysOnly || access[name] == blueprint.SettingsOnly) && (a != "dynamodb:GetItem" || !keysOnly(st)) {
										t.Errorf("%s on table %s, which %s may only probe for keys", a, name, f.Name)
									}
								}
								granted[name] = append(granted[name], actions...)
							case queueByID[id] != "":
								name := queueByID[id]
								allowed, ok := queueActions[name]
								if !ok {
									t.Errorf("policy mentions queue %s, which %s neither sends to nor consumes", name, f.Name)
								}
								for _, a := range actions {
									if ok && !slices.Contains(allowed, a) {
										t.Errorf("%s on queue %s", a, name)
									}
								}
								granted[name] = append(granted[name], actions...)
							case id == secretsKey && f.NeedsSecrets():
								// Opening is Decrypt of the function's own purposes, which it
								// requires (kmsRequirePurpose is on unless cdk.json turns it
								// off); only the settings API seals (GenerateDataKey, any purpose).
								for _, act := range actions {
									test, want := "StringEquals", f.Opens()
									if act == "kms:GenerateDataKey" && f.SealsSecrets {
										test, want = "StringEquals", blueprint.SecretPurposes
									} else if act != "kms:Decrypt" || len(want) == 0 {
										t.Errorf("%s on the tenant secrets key: %s may not", act, f.Name)
										continue
									}
									if got := purposeCondition(st, test); !slices.Equal(got, want) {
										t.Errorf("%s on the tenant secrets key for purposes %v (%s), want %v", act, got, test, want)
									}
								}
								granted["secrets-key"] = append(granted["secrets-key"], actions...)
							case id == logGroup:
								for _, a := range actions {
									if !slices.Contains(logWrites, a) {
										t.Errorf("%s on the function's log group", a)
									}
								}
								granted["logs"] = append(granted["logs"], actions...)
							case strings.HasPrefix(id, "AuditPseudonymKey") && pseudonymisesActors(f):
								for _, a := range actions {
									if a != "secretsmanager:GetSecretValue" && a != "secretsmanager:DescribeSecret" {
										t.Errorf("%s on the audit pseudonym key", a)
									}
								}
							case id == alertBus && f.PublishesAlerts:
								for _, a := range actions {
									if a != "events:PutEvents" {
										t.Errorf("%s on the alert bus", a)
									}
								}
							default:
								t.Errorf("policy mentions %s, which is neither a table, a queue nor (for an alert publisher) the alert bus", id)
							}
						}
					}
				}

				// And nothing listed is missing.
				for _, g := range f.Tables {
					want := dynamoReads
					switch g.Access {
					case blueprint.ReadWrite:
						want = append(slices.Clone(dynamoReads), dynamoWrites...)
					case blueprint.Append:
						want = []string{"dynamodb:PutItem"}
					case blueprint.KeysOnly, blueprint.SettingsOnly:
						want = []string{"dynamodb:GetItem"}
					}
					for _, a := range want {
						if !slices.Contains(granted[g.Table.Name], a) {
							t.Errorf("missing %s on table %s", a, g.Table.Name)
						}
					}
				}
				for _, a := range logWrites {
					if !slices.Contains(granted["logs"], a) {
						t.Errorf("missing %s on the function's own log group", a)
					}
				}
				if len(f.Opens()) > 0 && !slices.Contains(granted["secrets-key"], "kms:Decrypt") {
					t.Errorf("missing kms:Decrypt on the tenant secrets key")
				}
				if f.SealsSecrets && !slices.Contains(granted["secrets-key"], "kms:GenerateDataKey") {
					t.Errorf("missing kms:GenerateDataKey on the tenant secrets key: %s seals secrets", f.Name)
				}
				for _, q := range f.SendsTo {
					if !slices.Contains(granted[q.Name], "sqs:SendMessage") {
						t.Errorf("missing sqs:SendMessage on queue %s", q.Name)
					}
				}
				if f.Queue != nil {
					for _, a := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage"} {
						if !slices.Contains(granted[f.Queue.Name], a) {
							t.Errorf("missing %s on queue %s", a, f.Queue.Name)
						}
					}
				}
			})
		}
	})
}

func TestNoDynamoDBWildcardAnywhere(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		if strings.Contains(s.templateJSON(t), `"dynamodb:*"`) {
			t.Fatal(`the template grants "dynamodb:*"`)
		}
	})
}

// No role carries a managed policy: AWSLambdaBasicExecutionRole would let every function
// write to every log group of the account; each writes its own (asserted above). Besides
// one role per function there is the API's invoker (TestAPIInvokesOnlyItsRoutedFunctions).
func TestRolesCarryNoManagedPolicy(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		roles := s.resources(t, "AWS::IAM::Role", nil)
		if len(roles) != len(s.functions)+1 {
			t.Errorf("%d roles, want one per function (%d) and the API's invoker", len(roles), len(s.functions))
		}
		for id, r := range roles {
			if managed, ok := r["Properties"].(obj)["ManagedPolicyArns"]; ok {
				t.Errorf("role %s has managed policies %v", id, managed)
			}
		}
	})
}

// keysOnly reports whether a policy statement limits the attributes it reads to keys: the
// fine-grained access condition of blueprint.KeysOnly.
func keysOnly(st map[string]any) bool {
	cond, _ := st["Condition"].(map[string]any)
	attrs, _ := cond["ForAllValues:StringEquals"].(map[string]any)
	sel, _ := cond["StringEqualsIfExists"].(map[string]any)
	return attrs["dynamodb:Attributes"] != nil && sel["dynamodb:Select"] == "SPECIFIC_ATTRIBUTES"
}

// A read or read-write grant names the table and each index it declares, never
// "index/*" (cdk-nag AwsSolutions-IAM5): whatever tables and functions the blueprint
// lists, the Flows table's runs_by_time and runs_due included.
func TestTableGrantsNameEachIndex(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, f := range s.functions {
			t.Run(f.Name, func(t *testing.T) {
				// table id -> the suffixes of the resources granted on it ("" for the table)
				granted := map[string][]string{}
				for _, st := range s.statements(t, f.Name) {
					for _, r := range values(st["Resource"]) {
						switch e := r.(type) {
						case obj:
							if j, ok := e["Fn::Join"].(arr); ok {
								parts := j[1].(arr)
								ids := referencedIDs(parts[0])
								if len(ids) == 1 && len(parts) == 2 {
									suffix, _ := parts[1].(string)
									granted[ids[0]] = append(granted[ids[0]], suffix)
								}
								continue
							}
							for _, id := range referencedIDs(e) {
								granted[id] = append(granted[id], "")
							}
						case string:
							if strings.Contains(e, "/index/") {
								t.Errorf("literal index resource %q", e)
							}
						}
					}
				}
				for _, g := range f.Tables {
					id := s.tableID(t, g.Table.Name)
					got := granted[id]
					for _, suffix := range got {
						if strings.Contains(suffix, "*") {
							t.Errorf("table %s: wildcard resource %q", g.Table.Name, suffix)
						}
					}
					if g.Access != blueprint.Read && g.Access != blueprint.ReadWrite {
						continue
					}
					for _, ix := range g.Table.Indexes {
						if !slices.Contains(got, "/index/"+ix.Name) {
							t.Errorf("table %s: index %s not granted (granted %q)", g.Table.Name, ix.Name, got)
						}
					}
				}
			})
		}
	})
}

// purposeCondition is the purposes a KMS statement's test condition allows.
func purposeCondition(st map[string]any, test string) []string {
	cond, _ := st["Condition"].(map[string]any)
	byKey, _ := cond[test].(map[string]any)
	var out []string
	for _, v := range values(byKey[stack.PurposeCondition]) {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// Each function opens only the secret purposes it serves: the flow functions cannot open
// the embedded bootstrap secret, the settings API opens none, and nothing else touches
// the key (issue 28).
func TestSecretPurposesPerFunction(t *testing.T) {
	want := map[string][]string{
		blueprint.FuncIngest:                {"ingest"},
		blueprint.FuncEmbeddedHostBootstrap: {"embedded"},
		blueprint.FuncFinanceApprovalCreate: {"finance"},
		blueprint.FuncFlowEvent:             append(slices.Clone(blueprint.FlowSourcePurposes), blueprint.PurposeConnectors),
		blueprint.FuncFlowPoll:              {blueprint.PurposeConnectors},
		blueprint.FuncReconcile:             {blueprint.PurposeConnectors},
		blueprint.FuncSettingsPatch:         nil,
		blueprint.FuncSettingsOverrides:     nil,
		blueprint.FuncSettingsGet:           nil,
	}
	for _, f := range blueprint.Functions {
		w, ok := want[f.Name]
		if ok && !slices.Equal(f.Opens(), w) {
			t.Errorf("%s opens %v, want %v", f.Name, f.Opens(), w)
		}
		if slices.Contains(f.Opens(), "embedded") && f.Name != blueprint.FuncEmbeddedHostBootstrap {
			t.Errorf("%s may open the embedded bootstrap secret", f.Name)
		}
		if f.SealsSecrets != (f.Name == blueprint.FuncSettingsPatch || f.Name == blueprint.FuncSettingsRotate) {
			t.Errorf("%s seals secrets: %v", f.Name, f.SealsSecrets)
		}
	}
}
