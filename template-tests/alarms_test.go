package templatetests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/governance"
)

// alarmOn is the part every alarm shares: it fires on the first bad datapoint and pages
// the topic.
func alarmOn(s *synthesized, t *testing.T, props obj) obj {
	topic := ref(s.topicID(t))
	props["Threshold"] = num(1)
	props["ComparisonOperator"] = "GreaterThanOrEqualToThreshold"
	props["AlarmActions"] = arr{topic}
	return props
}

func TestDeadLetterQueueAlarms(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		if len(s.deadLetterQueues()) == 0 {
			t.Fatal("the blueprint declares no dead-letter queue")
		}
		for _, q := range s.deadLetterQueues() {
			t.Run(q.Name, func(t *testing.T) {
				s.has(t, "AWS::CloudWatch::Alarm", alarmOn(s, t, obj{
					"Namespace":  "AWS/SQS",
					"MetricName": "ApproximateNumberOfMessagesVisible",
					"Dimensions": arr{obj{"Name": "QueueName", "Value": getAtt(s.queueID(t, q.Name), "QueueName")}},
				}))
			})
		}
	})
}

// One alarm per function watches both its errors and its throttles (a stack holds at most
// 500 resources; one alarm each would cost a function's share twice over).
func TestFunctionFailureAlarms(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, f := range s.functions {
			t.Run(f.Name, func(t *testing.T) {
				dims := arr{obj{"Name": "FunctionName", "Value": ref(s.functionID(t, f.Name))}}
				metric := func(name string) assertions.Matcher {
					return assertions.Match_ObjectLike(&obj{"MetricStat": obj{"Metric": obj{"Namespace": "AWS/Lambda", "MetricName": name, "Dimensions": dims}}})
				}
				s.has(t, "AWS::CloudWatch::Alarm", alarmOn(s, t, obj{
					"Metrics": assertions.Match_ArrayWith(&arr{metric("Errors"), metric("Throttles")}),
				}))
			})
		}
	})
}

func TestAPIServerErrorAlarm(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.has(t, "AWS::CloudWatch::Alarm", alarmOn(s, t, obj{
			"Namespace":  "AWS/ApiGateway",
			"MetricName": "5xx",
			"Dimensions": arr{obj{"Name": "ApiId", "Value": ref(s.resourceID(t, "AWS::ApiGatewayV2::Api", obj{}))}},
		}))
	})
}

func TestTableThrottleAlarms(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, tb := range s.tables {
			t.Run(tb.Name, func(t *testing.T) {
				dims := arr{obj{"Name": "TableName", "Value": ref(s.tableID(t, tb.Name))}}
				metric := func(name string) assertions.Matcher {
					return assertions.Match_ObjectLike(&obj{"MetricStat": obj{"Metric": obj{"Namespace": "AWS/DynamoDB", "MetricName": name, "Dimensions": dims}}})
				}
				// An index's throttles carry its own dimension: the table's alone miss the
				// index keys, where a tenant's burst saturates first. (CDK writes the metrics
				// sorted by id: the indexes' reads, their writes, then the table's.)
				var want arr
				for _, name := range []string{"ReadThrottleEvents", "WriteThrottleEvents"} {
					for _, ix := range tb.Indexes {
						dims := arr{obj{"Name": "GlobalSecondaryIndexName", "Value": ix.Name}, obj{"Name": "TableName", "Value": ref(s.tableID(t, tb.Name))}}
						want = append(want, assertions.Match_ObjectLike(&obj{"MetricStat": obj{"Metric": obj{"Namespace": "AWS/DynamoDB", "MetricName": name, "Dimensions": dims}}}))
					}
				}
				want = append(want, metric("ReadThrottleEvents"), metric("WriteThrottleEvents"))
				s.has(t, "AWS::CloudWatch::Alarm", alarmOn(s, t, obj{
					"Metrics": assertions.Match_ArrayWith(&want),
				}))
			})
		}
	})
}

// Every cause alarm tickets (the topic), never pages: an incident pages once, through the
// objective it burns (TestBurnRateAlarms, in the nested stack OnCall).
func TestEveryAlarmNotifiesTheTopic(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		// One per DLQ, table and function (errors or throttles), plus the API's, the
		// diagnosis queue's age, the reconcile's, two approve-failure alarms and the
		// two outcome-unverified alarms, and the ownership-rejection and loop-detection spikes.
		n := len(s.deadLetterQueues()) + len(s.functions) + len(s.tables) + 9
		s.countIs(t, "AWS::CloudWatch::Alarm", n)
		topic := ref(s.topicID(t))
		check(t, func() {
			s.template.AllResourcesProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"AlarmActions": arr{topic},
				"OKActions":    arr{topic},
			})
		})
		// No traffic means nothing failed, except for the reconcile, whose silence is the alarm.
		if quiet := len(s.resources(t, "AWS::CloudWatch::Alarm", obj{"Properties": obj{"TreatMissingData": "notBreaching"}})); quiet != n-1 {
			t.Errorf("%d alarms treat missing data as fine, want %d", quiet, n-1)
		}
	})
}

func TestAlarmEmailSubscription(t *testing.T) {
	s := devStack.get(t)
	s.has(t, "AWS::SNS::Subscription", obj{
		"Protocol": "email",
		"Endpoint": testAlarmEmail,
		"TopicArn": ref(s.topicID(t)),
	})
	// Without an address there is nobody to confirm a subscription.
	prodStack.get(t).countIs(t, "AWS::SNS::Subscription", 0)
}

// The reconcile is the backstop; an alarm says when it stopped running (no ReconcileRuns
// datapoint for 45 minutes counts as breaching).
func TestReconcileStoppedAlarm(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.has(t, "AWS::CloudWatch::Alarm", obj{
			"Namespace":          "SyncAssist",
			"MetricName":         "ReconcileRuns",
			"Period":             num(900),
			"EvaluationPeriods":  num(3),
			"Threshold":          num(1),
			"ComparisonOperator": "LessThanThreshold",
			"TreatMissingData":   "breaching",
			"AlarmActions":       arr{ref(s.topicID(t))},
		})
	})
}

func TestDiagnosisQueueAgeAlarm(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.has(t, "AWS::CloudWatch::Alarm", obj{
			"Namespace":          "AWS/SQS",
			"MetricName":         "ApproximateAgeOfOldestMessage",
			"Dimensions":         arr{obj{"Name": "QueueName", "Value": getAtt(s.queueID(t, blueprint.Diagnosis.Name), "QueueName")}},
			"Threshold":          num(900),
			"ComparisonOperator": "GreaterThanOrEqualToThreshold",
			"AlarmActions":       arr{ref(s.topicID(t))},
		})
	})
}

// Approve failures (per feature) and bursts of ownership rejections and of loops blocked
// page, from the service's own metric lines: the names and dimensions the code emits.
func TestServiceMetricAlarms(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		for _, feature := range []string{"syncerror", "finance"} {
			s.has(t, "AWS::CloudWatch::Alarm", alarmOn(s, t, obj{
				"Namespace":  "SyncAssist",
				"MetricName": "Approves",
				"Dimensions": assertions.Match_ArrayWith(&arr{obj{"Name": "feature", "Value": feature}, obj{"Name": "outcome", "Value": "failed"}}),
			}))
			// A row returned to a person unverified: the feature's rollup (finance also
			// emits it by reason).
			s.has(t, "AWS::CloudWatch::Alarm", alarmOn(s, t, obj{
				"Namespace":  "SyncAssist",
				"MetricName": "OutcomesUnverified",
				"Dimensions": arr{obj{"Name": "feature", "Value": feature}},
			}))
		}
		s.has(t, "AWS::CloudWatch::Alarm", obj{"Namespace": emf.Namespace, "MetricName": governance.MetricOwnershipRejects,
			"Threshold": num(10), "Statistic": "Sum", "Period": num(300), "AlarmActions": arr{ref(s.topicID(t))}})
		// GuardDecisions' rollup by decision alone: a metric with the system dimension as
		// well would be one target system's loops only.
		s.has(t, "AWS::CloudWatch::Alarm", obj{
			"Namespace": emf.Namespace, "MetricName": governance.MetricGuardDecisions,
			"Dimensions": arr{obj{"Name": "decision", "Value": string(governance.DecisionLoopBlocked)}},
			"Threshold":  num(10), "Statistic": "Sum", "Period": num(300),
			"ComparisonOperator": "GreaterThanOrEqualToThreshold", "AlarmActions": arr{ref(s.topicID(t))},
		})
	})
}

// The stage has one dashboard, whose widgets read the service's own metrics and every
// function's errors.
func TestDashboard(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::CloudWatch::Dashboard", 1)
		widgets := s.dashboardWidgets(t)
		titled := func(title string) dashboardWidget {
			t.Helper()
			for _, w := range widgets {
				if w.Properties.Title == title {
					return w
				}
			}
			t.Fatalf("no widget %q", title)
			return dashboardWidget{}
		}
		body, _ := json.Marshal(widgets)
		for _, want := range []string{"SyncErrorsIngested", "DiagnosisLatency", "Approves", "OwnershipRejections",
			"ApproximateAgeOfOldestMessage"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("the dashboard has no %s", want)
			}
		}
		// One errors series per function, whatever functions the blueprint lists.
		if got := len(titled("Errors per function").Properties.Metrics); got != len(s.functions) {
			t.Errorf("errors per function: %d series, want %d", got, len(s.functions))
		}
		// Guard decisions by the two dimensions the guard's lines carry.
		expr := func(w dashboardWidget) []string {
			var out []string
			for _, m := range w.Properties.Metrics {
				for _, part := range m {
					if o, ok := part.(map[string]any); ok && o["expression"] != nil {
						out = append(out, o["expression"].(string))
					}
				}
			}
			return out
		}
		decisions := titled("Guard decisions by decision and target system")
		if got, want := expr(decisions), []string{`SEARCH('{SyncAssist,decision,system} MetricName="` +
			governance.MetricGuardDecisions + `"', 'Sum', 300)`}; !slices.Equal(got, want) {
			t.Errorf("guard decisions read %q, want %q", got, want)
		}
		// AI cost: a day per bar, per tenant, over two weeks.
		cost := titled("AI cost per tenant per day (USD)")
		if got, want := expr(cost), []string{`SEARCH('{SyncAssist,tenant} MetricName="` + ai.MetricAICost + `"', 'Sum', 86400)`}; !slices.Equal(got, want) {
			t.Errorf("AI cost reads %q, want %q", got, want)
		}
		if p := cost.Properties; p.Period != 86400 || p.Start != "-P14D" || p.View != "bar" {
			t.Errorf("AI cost widget %+v, want daily bars over 14 days", p)
		}
		// The loops the alarm watches are on screen too.
		if !strings.Contains(string(body), `"GuardDecisions","decision","loop_blocked"`) {
			t.Error("the dashboard does not show the loops blocked")
		}
	})
}

// dashboardWidget is what the tests read of one widget of the dashboard body.
type dashboardWidget struct {
	Type       string
	Properties struct {
		Title   string
		Metrics [][]any
		Period  int
		Start   string
		View    string
	}
}

// dashboardWidgets parses the dashboard's body, an Fn::Join of JSON text and tokens (the
// region, function names); each token becomes the string "TOKEN".
func (s *synthesized) dashboardWidgets(t *testing.T) []dashboardWidget {
	t.Helper()
	for _, d := range s.resources(t, "AWS::CloudWatch::Dashboard", nil) {
		var body strings.Builder
		switch b := d["Properties"].(obj)["DashboardBody"].(type) {
		case string:
			body.WriteString(b)
		case obj:
			for _, part := range b["Fn::Join"].(arr)[1].(arr) {
				if str, ok := part.(string); ok {
					body.WriteString(str)
				} else {
					body.WriteString("TOKEN")
				}
			}
		}
		var doc struct{ Widgets []dashboardWidget }
		if err := json.Unmarshal([]byte(body.String()), &doc); err != nil {
			t.Fatalf("dashboard body: %v\n%s", err, body.String())
		}
		return doc.Widgets
	}
	t.Fatal("no dashboard")
	return nil
}

// The alarm topic is encrypted with a key of its own, which CloudWatch may use to publish
// (it cannot use the AWS-managed SNS key), and refuses publishers without TLS.
func TestAlarmTopicIsEncryptedAndTLSOnly(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		topic := s.topicID(t)
		key := s.resourceID(t, "AWS::KMS::Key", obj{"Properties": obj{
			"Description":       "Encrypts the SyncAssist alarm topic",
			"EnableKeyRotation": true,
			"KeyPolicy": obj{"Statement": assertions.Match_ArrayWith(&arr{obj{
				"Action":    arr{"kms:Decrypt", "kms:GenerateDataKey*"},
				"Effect":    "Allow",
				"Principal": obj{"Service": "cloudwatch.amazonaws.com"},
				"Resource":  "*",
			}})},
		}})
		s.has(t, "AWS::SNS::Topic", obj{"KmsMasterKeyId": getAtt(key, "Arn")})
		s.has(t, "AWS::SNS::TopicPolicy", obj{
			"Topics": arr{ref(topic)},
			"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(&arr{assertions.Match_ObjectLike(&obj{
				"Effect":    "Deny",
				"Action":    "sns:Publish",
				"Condition": obj{"Bool": obj{"aws:SecureTransport": "false"}},
				"Resource":  ref(topic),
			})})},
		})
	})
}
