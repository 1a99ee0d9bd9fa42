package templatetests

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// Blueprint additions of every kind the stack must pick up on its own: a table with TTL,
// a number sort key and an index without sort key; a queue pair; an HTTP function with a
// path parameter; a queue consumer; a scheduled function on an hourly rate.
var (
	widgets = blueprint.Table{
		Name:         "widgets",
		PartitionKey: blueprint.Key{Name: "tenant_id", Type: blueprint.String},
		SortKey:      &blueprint.Key{Name: "widget_id", Type: blueprint.String},
		Indexes:      []blueprint.Index{{Name: "by_owner", PartitionKey: blueprint.Key{Name: "owner_key", Type: blueprint.String}}},
		TTLAttribute: "expires_at",
		EnvVar:       "TABLE_WIDGETS",
	}
	counters = blueprint.Table{
		Name:         "counters",
		PartitionKey: blueprint.Key{Name: "tenant_id", Type: blueprint.String},
		SortKey:      &blueprint.Key{Name: "n", Type: blueprint.Number},
		EnvVar:       "TABLE_COUNTERS",
	}
	widgetsDLQ = blueprint.Queue{Name: "widgets-dlq", EnvVar: "WIDGETS_DLQ_URL", Retention: 7 * 24 * time.Hour}
	widgetsQ   = blueprint.Queue{
		Name: "widgets", EnvVar: "WIDGETS_QUEUE_URL",
		VisibilityTimeout: 2 * time.Minute, Retention: 24 * time.Hour,
		MaxReceiveCount: 3, DeadLetter: &widgetsDLQ,
	}
	widgetRoute = blueprint.Route{Method: "GET", Path: "/api/widgets/{id}"}
	filesRoute  = blueprint.Route{Method: "GET", Path: "/api/widgets/{id}/files/{path...}"}
)

func extendedSpec() synthesized {
	tables := append(append([]blueprint.Table{}, blueprint.Tables...), widgets, counters)
	queues := append(append([]blueprint.Queue{}, blueprint.Queues...), widgetsDLQ, widgetsQ)
	fns := append(append([]blueprint.Function{}, blueprint.Functions...),
		blueprint.Function{
			Name: "widget-get", Route: &widgetRoute,
			Tables:  []blueprint.TableGrant{{Table: &widgets, Access: blueprint.Read}},
			Timeout: 5 * time.Second, MemoryMB: 128,
		},
		blueprint.Function{
			Name: "widget-files", Route: &filesRoute,
			Tables:  []blueprint.TableGrant{{Table: &widgets, Access: blueprint.Read}},
			Timeout: 5 * time.Second, MemoryMB: 128,
		},
		blueprint.Function{
			Name: "widget-index", Queue: &widgetsQ,
			Tables:  []blueprint.TableGrant{{Table: &widgets, Access: blueprint.ReadWrite}, {Table: &counters, Access: blueprint.ReadWrite}},
			Timeout: 20 * time.Second, MemoryMB: 256, BatchSize: 5, MaxConcurrency: 4,
		},
		blueprint.Function{
			Name: "widget-reaper", Schedule: 2 * time.Hour,
			Tables:  []blueprint.TableGrant{{Table: &widgets, Access: blueprint.ReadWrite}},
			SendsTo: []blueprint.Queue{widgetsQ},
			Timeout: time.Minute, MemoryMB: 128,
		},
	)
	return synthesized{name: "extended", stage: "qa", tables: tables, queues: queues, functions: fns}
}

// The generic assertions already run against the extended stack; this pins the additions
// that today's blueprint cannot show, with literal expectations.
func TestStackFollowsBlueprintAdditions(t *testing.T) {
	s := extendedStack.get(t)

	t.Run("ttl", func(t *testing.T) {
		s.has(t, "AWS::DynamoDB::Table", obj{
			"TableName":               "qa-widgets",
			"TimeToLiveSpecification": obj{"AttributeName": "expires_at", "Enabled": true},
		})
	})
	t.Run("number key", func(t *testing.T) {
		s.has(t, "AWS::DynamoDB::Table", obj{
			"TableName":            "qa-counters",
			"AttributeDefinitions": arr{obj{"AttributeName": "tenant_id", "AttributeType": "S"}, obj{"AttributeName": "n", "AttributeType": "N"}},
		})
	})
	t.Run("path parameter route", func(t *testing.T) {
		s.has(t, "AWS::ApiGatewayV2::Route", obj{"RouteKey": "GET /api/widgets/{id}"})
	})
	t.Run("wildcard route", func(t *testing.T) {
		s.has(t, "AWS::ApiGatewayV2::Route", obj{"RouteKey": "GET /api/widgets/{id}/files/{path+}"})
	})
	t.Run("hourly schedule", func(t *testing.T) {
		s.has(t, "AWS::Events::Rule", obj{"ScheduleExpression": "rate(2 hours)"})
	})
	t.Run("second redrive", func(t *testing.T) {
		s.has(t, "AWS::SQS::Queue", obj{
			"QueueName":     "qa-widgets",
			"RedrivePolicy": obj{"deadLetterTargetArn": getAtt(s.queueID(t, "widgets-dlq"), "Arn"), "maxReceiveCount": num(3)},
		})
	})
	t.Run("qa keeps its data", func(t *testing.T) {
		s.has(t, "AWS::DynamoDB::Table", obj{"TableName": "qa-widgets", "DeletionProtectionEnabled": true})
	})
}
