package stack

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/governance"
)

// loopsBlocked selects the guard's loop_blocked decisions from GuardDecisions' rollup by
// decision (every target system together).
var loopsBlocked = map[string]*string{"decision": jsii.String(string(governance.DecisionLoopBlocked))}

// alarmPeriod is the window every alarm evaluates. Every alarm fires on the first bad
// datapoint: a message in a DLQ, a function error, a 5xx or a throttle is each something
// an operator should look at, and none of them is expected in normal traffic.
const alarmPeriod = 5 * time.Minute

// AlarmsProps configures NewAlarms.
type AlarmsProps struct {
	// Email, when set, is subscribed to the topic (the address must confirm it).
	Email   string
	Tables  *Tables
	Queues  *Queues
	Lambdas *Functions
	// Functions supplies descriptions for the function alarms.
	Functions []blueprint.Function
	API       awsapigatewayv2.HttpApi
}

// Alarms holds the alarm topic and the alarms that notify it.
type Alarms struct {
	constructs.Construct
	Topic  awssns.Topic
	action awscloudwatch.IAlarmAction
}

// NewAlarms creates the topic and one alarm per DLQ (not empty), per function (errors or
// throttles: one alarm, since a stack holds at most 500 resources and every function
// already costs eight), per table (throttles), for the diagnosis queue's oldest message, for the API
// (5xx), for the reconcile (stopped), per approving feature (failures) and for spikes of
// ownership rejections and of loops blocked.
func NewAlarms(scope constructs.Construct, id string, props *AlarmsProps) *Alarms {
	c := &Alarms{Construct: constructs.NewConstruct(scope, jsii.String(id))}
	c.Topic = awssns.NewTopic(c.Construct, jsii.String("Topic"), &awssns.TopicProps{
		DisplayName: jsii.String("SyncAssist alarms"),
		MasterKey:   newTopicKey(c.Construct),
		EnforceSSL:  jsii.Bool(true),
	})
	c.action = awscloudwatchactions.NewSnsAction(c.Topic)
	if props.Email != "" {
		c.Topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.Email), nil))
	}

	period := seconds(alarmPeriod)
	if props.Queues != nil {
		for _, name := range props.Queues.DeadLetterNames() {
			q := props.Queues.Queue(name)
			c.alarm("DeadLetter"+constructID(name), "Messages are waiting in dead-letter queue "+name+
				"; they failed every retry and need an operator",
				q.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
					Period: period, Statistic: jsii.String("Maximum"),
				}))
		}
	}
	if props.Lambdas != nil {
		descriptions := map[string]string{}
		for _, f := range props.Functions {
			descriptions[f.Name] = f.Description
		}
		for _, name := range props.Lambdas.Names() {
			desc := "Function " + name + " reported errors"
			if d := descriptions[name]; d != "" {
				desc += " (" + d + ")"
			}
			fn := props.Lambdas.Function(name)
			opts := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
			c.alarm("Failures"+constructID(name), desc+" or was throttled (invocations refused for lack of concurrency); "+
				"the Errors and Throttles metrics of the function tell which",
				awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
					Expression:   jsii.String("FILL(errors, 0) + FILL(throttles, 0)"),
					UsingMetrics: &map[string]awscloudwatch.IMetric{"errors": fn.MetricErrors(opts), "throttles": fn.MetricThrottles(opts)},
					Period:       period,
					Label:        jsii.String("Errors and throttles"),
				}))
		}
	}
	if props.Tables != nil {
		for _, name := range props.Tables.Names() {
			c.alarm("Throttles"+constructID(name), "Requests to table "+name+" or one of its indexes were throttled",
				tableThrottles(props.Tables.Table(name), props.Tables.Indexes(name), period))
		}
	}
	if props.Queues != nil {
		if q := props.Queues.Queue(blueprint.Diagnosis.Name); q != nil {
			// Diagnoses normally start within seconds; a quarter hour means the worker is down
			// or failing every message before the DLQ takes it.
			c.alarmAt("DiagnosisQueueAge", "The oldest diagnosis message has waited 15 minutes: the worker is not keeping up",
				q.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}),
				DiagnosisAgeAlarm.Seconds())
		}
	}
	c.reconcileStopped()
	// An approve that failed left an operator's decision undone; a burst of ownership
	// rejections means a system is writing where it must not.
	for _, feature := range []string{"syncerror", "finance"} {
		c.alarm("ApproveFailures"+constructID(feature), "A "+feature+" approve failed: the decision was not written",
			ownMetric("Approves", "Sum", period, map[string]*string{"feature": jsii.String(feature), "outcome": jsii.String("failed")}))
	}
	c.alarmAt("OwnershipRejectionSpike", "10 or more writes were refused by the ownership manifest in 5 minutes",
		ownMetric(governance.MetricOwnershipRejects, "Sum", period, nil), 10)
	// A blocked echo is the guard doing its job; a burst of them means two flows or
	// integrations keep writing the same record back and forth.
	c.alarmAt("LoopDetectionSpike", "10 or more writes were blocked as the return leg of a loop in 5 minutes: "+
		"two flows or integrations are echoing each other's writes",
		ownMetric(governance.MetricGuardDecisions, "Sum", period, loopsBlocked), 10)
	if props.API != nil {
		c.alarm("Api5xx", "The HTTP API answered with 5xx errors",
			props.API.MetricServerError(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}))
	}
	return c
}

// newTopicKey encrypts the alarm topic at rest. It is a key of our own because the
// AWS-managed SNS key cannot be used by CloudWatch, which must encrypt what its alarms
// publish; nothing outlives the topic's messages, so the key goes with the stack.
func newTopicKey(scope constructs.Construct) awskms.IKey {
	key := awskms.NewKey(scope, jsii.String("TopicKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the SyncAssist alarm topic"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_DESTROY,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		// In a key policy "*" is this key.
		Resources: jsii.Strings("*"),
	}), nil)
	return key
}

// reconcileStopped alarms when no reconcile run has reported for 45 minutes (its schedule
// is 30): the backstop that catches missed webhooks and stopped approves is itself down.
// The runs are counted by the reconcile's own EMF line (ReconcileRuns), written whatever
// the log level; missing data is the alarm, not its absence.
func (c *Alarms) reconcileStopped() {
	runs := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(emf.Namespace), MetricName: jsii.String("ReconcileRuns"),
		Period: seconds(15 * time.Minute), Statistic: jsii.String("Sum"),
	})
	a := awscloudwatch.NewAlarm(c.Construct, jsii.String("ReconcileStopped"), &awscloudwatch.AlarmProps{
		Metric:             runs,
		AlarmDescription:   jsii.String("The reconcile has not run for 45 minutes (every 30 expected): missed webhooks and stopped approves are not being caught"),
		Threshold:          jsii.Number(1),
		EvaluationPeriods:  jsii.Number(3),
		ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
	})
	a.AddAlarmAction(c.action)
	a.AddOkAction(c.action)
}

// DiagnosisAgeAlarm is the age of the oldest diagnosis message that pages.
const DiagnosisAgeAlarm = 15 * time.Minute

func (c *Alarms) alarm(id, description string, metric awscloudwatch.IMetric) awscloudwatch.Alarm {
	return c.alarmAt(id, description, metric, 1)
}

// alarmAt pages on the first datapoint at or above threshold.
func (c *Alarms) alarmAt(id, description string, metric awscloudwatch.IMetric, threshold float64) awscloudwatch.Alarm {
	a := awscloudwatch.NewAlarm(c.Construct, jsii.String(id), &awscloudwatch.AlarmProps{
		Metric:             metric,
		AlarmDescription:   jsii.String(description),
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		// No traffic means nothing failed.
		TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	a.AddAlarmAction(c.action)
	// The all-clear goes to the same people who were paged.
	a.AddOkAction(c.action)
	return a
}

// tableThrottles sums a table's read and write throttle events with its indexes'. An index
// key is where a tenant's burst saturates first (README, Scale), and its throttles are
// reported under the index's own dimension, not the table's. FILL keeps the sum defined
// when only some of them were throttled.
func tableThrottles(t awsdynamodb.Table, indexes []string, period awscdk.Duration) awscloudwatch.IMetric {
	metrics := map[string]awscloudwatch.IMetric{}
	var terms []string
	add := func(id, name string, dims map[string]*string) {
		metrics[id] = awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/DynamoDB"), MetricName: jsii.String(name),
			DimensionsMap: &dims, Period: period, Statistic: jsii.String("Sum"),
		})
		terms = append(terms, "FILL("+id+", 0)")
	}
	add("reads", "ReadThrottleEvents", map[string]*string{"TableName": t.TableName()})
	add("writes", "WriteThrottleEvents", map[string]*string{"TableName": t.TableName()})
	for k, ix := range indexes {
		dims := map[string]*string{"TableName": t.TableName(), "GlobalSecondaryIndexName": jsii.String(ix)}
		add(fmt.Sprintf("ireads%d", k), "ReadThrottleEvents", dims)
		add(fmt.Sprintf("iwrites%d", k), "WriteThrottleEvents", dims)
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(strings.Join(terms, " + ")),
		UsingMetrics: &metrics,
		Period:       period,
		Label:        jsii.String("Throttled requests"),
	})
}
