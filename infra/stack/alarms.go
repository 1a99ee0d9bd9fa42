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
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/oncall"
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
	// RunbookBase prefixes a runbook's repository path in every alarm description
	// (default oncall.DefaultRunbookBase).
	RunbookBase string
	// Stage names the saved queries; Logs is the functions' log group they read.
	Stage string
	Logs  awslogs.ILogGroup
}

// Alarms holds the topics and the alarms that notify them. Topic is the ticket topic:
// every cause alarm and the slow burns notify it; Page gets the fast burns only.
type Alarms struct {
	constructs.Construct
	Topic awssns.Topic
	// Page and the burn-rate alarms live in the nested stack OnCall (slo.go).
	Page        awssns.Topic
	OnCall      awscdk.NestedStack
	action      awscloudwatch.IAlarmAction
	runbookBase string
}

// NewAlarms creates the topic and one alarm per DLQ (not empty), per function (errors or
// throttles: one alarm, since a stack holds at most 500 resources and every function
// already costs eight), per table (throttles), for the diagnosis queue's oldest message, for the API
// (5xx), for the reconcile (stopped), per approving feature (failures) and for spikes of
// ownership rejections and of loops blocked.
func NewAlarms(scope constructs.Construct, id string, props *AlarmsProps) *Alarms {
	c := &Alarms{Construct: constructs.NewConstruct(scope, jsii.String(id)), runbookBase: props.RunbookBase}
	if c.runbookBase == "" {
		c.runbookBase = oncall.DefaultRunbookBase
	}
	key := newTopicKey(c.Construct)
	c.Topic = awssns.NewTopic(c.Construct, jsii.String("Topic"), &awssns.TopicProps{
		DisplayName: jsii.String("SyncAssist alarms (tickets)"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	c.action = awscloudwatchactions.NewSnsAction(c.Topic)
	if props.Email != "" {
		c.Topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.Email), nil))
	}

	c.objectives(props, key)
	period := seconds(alarmPeriod)
	if props.Queues != nil {
		for _, name := range props.Queues.DeadLetterNames() {
			q := props.Queues.Queue(name)
			c.alarm("DeadLetter"+constructID(name), oncall.DeadLetter, "Messages are waiting in dead-letter queue "+name+
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
			c.alarm("Failures"+constructID(name), oncall.FunctionFailures, desc+" or was throttled (invocations refused for lack of concurrency); "+
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
			c.alarm("Throttles"+constructID(name), oncall.TableThrottles, "Requests to table "+name+" or one of its indexes were throttled",
				tableThrottles(props.Tables.Table(name), props.Tables.Indexes(name), period))
		}
	}
	if props.Queues != nil {
		if q := props.Queues.Queue(blueprint.Diagnosis.Name); q != nil {
			c.alarm("DiagnosisQueueAge", oncall.DiagnosisQueueAge, "The oldest diagnosis message has waited 15 minutes: the worker is not keeping up",
				q.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}))
		}
	}
	c.reconcileStopped()
	// An approve that failed left an operator's decision undone; a burst of ownership
	// rejections means a system is writing where it must not.
	for _, feature := range []string{"syncerror", "finance"} {
		c.alarm("ApproveFailures"+constructID(feature), oncall.ApproveFailures, "A "+feature+" approve failed: the decision was not written",
			ownMetric(oncall.ApproveFailures.Metric, "Sum", period, map[string]*string{"feature": jsii.String(feature),
				"outcome": jsii.String(oncall.ApproveFailures.Dims["outcome"])}))
	}
	for _, feature := range []string{"syncerror", "finance"} {
		c.alarm("OutcomeUnverified"+constructID(feature), oncall.OutcomeUnverified, "A "+feature+" approve's outcome could not be "+
			"verified for a day; the row went back to a person, who must check the record before approving again",
			ownMetric(oncall.OutcomeUnverified.Metric, "Sum", period, map[string]*string{"feature": jsii.String(feature)}))
	}
	c.alarm("OwnershipRejectionSpike", oncall.OwnershipRejectionSpike, "10 or more writes were refused by the ownership manifest in 5 minutes",
		ownMetric(oncall.OwnershipRejectionSpike.Metric, "Sum", period, nil))
	// A blocked echo is the guard doing its job; a burst of them means two flows or
	// integrations keep writing the same record back and forth.
	c.alarm("LoopDetectionSpike", oncall.LoopDetectionSpike, "10 or more writes were blocked as the return leg of a loop in 5 minutes: "+
		"two flows or integrations are echoing each other's writes",
		ownMetric(oncall.LoopDetectionSpike.Metric, "Sum", period, loopsBlocked))
	if props.API != nil {
		c.alarm("Api5xx", oncall.Api5xx, "The HTTP API answered with 5xx errors",
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
	k := oncall.ReconcileStopped
	runs := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(emf.Namespace), MetricName: jsii.String(k.Metric),
		Period: seconds(k.Window), Statistic: jsii.String("Sum"),
	})
	a := awscloudwatch.NewAlarm(c.Construct, jsii.String("ReconcileStopped"), &awscloudwatch.AlarmProps{
		Metric: runs,
		AlarmDescription: jsii.String("The reconcile has not run for 45 minutes (every 30 expected): missed webhooks and stopped approves are not being caught. " +
			c.runbook(k.Runbook())),
		Threshold:          jsii.Number(k.Threshold),
		EvaluationPeriods:  jsii.Number(3),
		ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
	})
	a.AddAlarmAction(c.action)
	a.AddOkAction(c.action)
}

// alarm is a cause alarm of its kind: it tickets on the first datapoint at or above
// the kind's threshold, and its description links the kind's runbook.
func (c *Alarms) alarm(id string, kind oncall.Kind, description string, metric awscloudwatch.IMetric) awscloudwatch.Alarm {
	a := awscloudwatch.NewAlarm(c.Construct, jsii.String(id), &awscloudwatch.AlarmProps{
		Metric:             metric,
		AlarmDescription:   jsii.String(description + ". " + c.runbook(kind.Runbook())),
		Threshold:          jsii.Number(kind.Threshold),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		// No traffic means nothing failed.
		TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	a.AddAlarmAction(c.action)
	// The all-clear goes to the same people who were told.
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
