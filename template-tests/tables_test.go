package templatetests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
)

func keySchema(pk blueprint.Key, sk *blueprint.Key) arr {
	ks := arr{obj{"AttributeName": pk.Name, "KeyType": "HASH"}}
	if sk != nil {
		ks = append(ks, obj{"AttributeName": sk.Name, "KeyType": "RANGE"})
	}
	return ks
}

// keyAttributes lists the distinct attributes a table's keys and indexes use.
func keyAttributes(tb blueprint.Table) []blueprint.Key {
	var out []blueprint.Key
	seen := map[string]bool{}
	add := func(k *blueprint.Key) {
		if k != nil && !seen[k.Name] {
			seen[k.Name] = true
			out = append(out, *k)
		}
	}
	add(&tb.PartitionKey)
	add(tb.SortKey)
	for _, ix := range tb.Indexes {
		add(&ix.PartitionKey)
		add(ix.SortKey)
	}
	return out
}

func TestTableCountMatchesBlueprint(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::DynamoDB::Table", len(s.tables))
	})
}

func TestTableKeys(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, tb := range s.tables {
			t.Run(tb.Name, func(t *testing.T) {
				attrs := keyAttributes(tb)
				name := blueprint.PhysicalName(s.stage, tb.Name)
				s.has(t, "AWS::DynamoDB::Table", obj{"TableName": name, "KeySchema": keySchema(tb.PartitionKey, tb.SortKey)})
				// Each key attribute is defined, in any order, and nothing else is:
				// DynamoDB rejects definitions that no key uses.
				for _, k := range attrs {
					def := obj{"AttributeName": k.Name, "AttributeType": string(k.Type)}
					s.has(t, "AWS::DynamoDB::Table", obj{"TableName": name, "AttributeDefinitions": assertions.Match_ArrayWith(&arr{def})})
				}
				id := s.tableID(t, tb.Name)
				got := s.resources(t, "AWS::DynamoDB::Table", nil)[id]["Properties"].(obj)["AttributeDefinitions"].(arr)
				if len(got) != len(attrs) {
					t.Fatalf("AttributeDefinitions has %d entries, want %d (%v)", len(got), len(attrs), got)
				}
			})
		}
	})
}

func TestTableIndexes(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, tb := range s.tables {
			t.Run(tb.Name, func(t *testing.T) {
				var want any = assertions.Match_Absent()
				if len(tb.Indexes) > 0 {
					indexes := arr{}
					for _, ix := range tb.Indexes {
						indexes = append(indexes, obj{
							"IndexName":  ix.Name,
							"KeySchema":  keySchema(ix.PartitionKey, ix.SortKey),
							"Projection": indexProjection(ix.Projection),
						})
					}
					want = indexes
				}
				s.has(t, "AWS::DynamoDB::Table", obj{
					"TableName":              blueprint.PhysicalName(s.stage, tb.Name),
					"GlobalSecondaryIndexes": want,
				})
			})
		}
	})
}

// indexProjection is an index's Projection as the template should carry it.
func indexProjection(p blueprint.Projection) obj {
	out := obj{"ProjectionType": p.Type()}
	if p.Type() == "INCLUDE" {
		out["NonKeyAttributes"] = p.Include
	}
	return out
}

// tablesWithContext synthesizes the tables alone (a whole stack costs a minute) under
// cdk.json's context plus one value, with its synthesis messages.
func tablesWithContext(t *testing.T, key, value string) (assertions.Template, string) {
	t.Helper()
	ctx, err := stack.ContextFromFile("../cdk.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx[key] = value
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
	st := awscdk.NewStack(app, jsii.String("S"), nil)
	stack.NewTables(st, "Tables", &stack.TablesProps{Stage: "prod", Tables: blueprint.Tables, Retain: true})
	msgs := app.Synth(nil).GetStackArtifact(jsii.String("S")).Messages()
	all, _ := json.Marshal(*msgs) // the message's own fields are deprecated for direct reading
	return assertions.Template_FromStack(st, nil), string(all)
}

// A stage deployed before 2026-11-29 has the claim indexes projecting ALL, and DynamoDB
// cannot change an index's projection in place, so claimIndexProjections=all keeps them
// (its other indexes stay as the blueprint declares); lean is the blueprint's own, which
// TestTableIndexes holds for the default.
func TestClaimIndexProjectionsContext(t *testing.T) {
	for _, value := range []string{stack.ClaimIndexProjectionsAll, stack.ClaimIndexProjectionsLean} {
		t.Run(value, func(t *testing.T) {
			tmpl, msgs := tablesWithContext(t, stack.ClaimIndexProjectionsContext, value)
			if strings.Contains(msgs, "claimIndexProjections") {
				t.Fatalf("synthesis messages: %s", msgs)
			}
			indexes := arr{}
			for _, ix := range blueprint.Processed.Indexes {
				p := indexProjection(ix.Projection)
				if value == stack.ClaimIndexProjectionsAll && (ix.Name == blueprint.IndexByStatus || ix.Name == blueprint.IndexByDiagnosis) {
					p = obj{"ProjectionType": "ALL"}
				}
				indexes = append(indexes, obj{"IndexName": ix.Name, "KeySchema": keySchema(ix.PartitionKey, ix.SortKey), "Projection": p})
			}
			check(t, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), obj{
					"TableName":              blueprint.PhysicalName("prod", blueprint.Processed.Name),
					"GlobalSecondaryIndexes": indexes,
				})
			})
		})
	}
	// A misspelt value would deploy the lean indexes onto an old stage, which CloudFormation
	// refuses and rolls back: synthesis stops first, naming the key and its values.
	t.Run("unknown", func(t *testing.T) {
		_, msgs := tablesWithContext(t, stack.ClaimIndexProjectionsContext, "ALL ")
		if !strings.Contains(msgs, "aws:cdk:error") || !strings.Contains(msgs, `claimIndexProjections \"ALL \": want \"lean\" or \"all\"`) {
			t.Fatalf("no synthesis error for an unknown claimIndexProjections: %s", msgs)
		}
	})
}

func TestTablesAreOnDemandRecoverableAndEncrypted(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		check(t, func() {
			s.template.AllResourcesProperties(jsii.String("AWS::DynamoDB::Table"), obj{
				"BillingMode":                      "PAY_PER_REQUEST",
				"PointInTimeRecoverySpecification": obj{"PointInTimeRecoveryEnabled": true},
				// SSEEnabled without a key ARN is the AWS-managed key.
				"SSESpecification":      assertions.Match_ObjectEquals(&obj{"SSEEnabled": true}),
				"ProvisionedThroughput": assertions.Match_Absent(),
			})
		})
	})
}

func TestTableTTL(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, tb := range s.tables {
			t.Run(tb.Name, func(t *testing.T) {
				var want any = assertions.Match_Absent()
				if tb.TTLAttribute != "" {
					want = obj{"AttributeName": tb.TTLAttribute, "Enabled": true}
				}
				s.has(t, "AWS::DynamoDB::Table", obj{
					"TableName":               blueprint.PhysicalName(s.stage, tb.Name),
					"TimeToLiveSpecification": want,
				})
			})
		}
	})
}

func TestTableProtectionDependsOnStage(t *testing.T) {
	for _, tc := range []struct {
		stack     *lazyStack
		protected bool
		policy    string
	}{
		{devStack, false, "Delete"},
		{prodStack, true, "Retain"},
	} {
		t.Run(tc.stack.spec.name, func(t *testing.T) {
			s := tc.stack.get(t)
			check(t, func() {
				s.template.AllResources(jsii.String("AWS::DynamoDB::Table"), obj{
					"DeletionPolicy":      tc.policy,
					"UpdateReplacePolicy": tc.policy,
					"Properties":          obj{"DeletionProtectionEnabled": tc.protected},
				})
			})
		})
	}
}
