package stack

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/oncall"
	"github.com/syncassist/syncassist/shared/platform"
)

// maxAlarmMetrics is the most metrics (the expression included) one metric math alarm is
// given here: a journey's function errors are added to its 5xx only when they all fit
// (the console reads span dozens of functions; their crashes are the function-failures
// alarms').
const maxAlarmMetrics = 10

// objectives creates, per objective and burn, an alarm on the burn rate over the long
// window and one over the short window (neither notifies), and the composite requiring
// both, which notifies the burn's topic (fast: page, slow: ticket). The cause alarms
// notify the ticket topic only, so one incident pages once: through its objective.
//
// They live in a nested stack, OnCall, with the page topic and the saved queries: the
// service's stack is within a few dozen resources of CloudFormation's 500, and these 44
// cost it one.
func (c *Alarms) objectives(props *AlarmsProps, key awskms.IKey) {
	c.OnCall = awscdk.NewNestedStack(c.Construct, jsii.String("OnCall"), &awscdk.NestedStackProps{
		Description: jsii.String("SyncAssist service levels: burn-rate alarms, the page topic and the runbooks' saved queries"),
	})
	scope := c.OnCall
	c.Page = awssns.NewTopic(scope, jsii.String("PageTopic"), &awssns.TopicProps{
		DisplayName: jsii.String("SyncAssist pages"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	if props.Email != "" {
		c.Page.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.Email), nil))
	}
	if props.Logs != nil {
		NewQueries(scope, "Queries", props.Stage, props.Logs)
	}
	actions := map[string]awscloudwatch.IAlarmAction{
		oncall.TopicPage:   awscloudwatchactions.NewSnsAction(c.Page),
		oncall.TopicTicket: c.action,
	}
	for _, o := range oncall.Objectives {
		for _, b := range oncall.Burns {
			long := c.burnAlarm(scope, o, b, "Long", b.Long, props)
			short := c.burnAlarm(scope, o, b, "Short", b.Short, props)
			rule := awscloudwatch.AlarmRule_AllOf(
				awscloudwatch.AlarmRule_FromAlarm(long, awscloudwatch.AlarmState_ALARM),
				awscloudwatch.AlarmRule_FromAlarm(short, awscloudwatch.AlarmState_ALARM))
			comp := awscloudwatch.NewCompositeAlarm(scope, jsii.String(o.AlarmName(b, "")), &awscloudwatch.CompositeAlarmProps{
				AlarmRule: rule,
				AlarmDescription: jsii.String(fmt.Sprintf("%s (objective %.1f%% over 30 days) is spending its error budget %g× too fast "+
					"over both %s and %s. %s", o.Title, o.Target*100, b.Rate, oncall.Human(b.Long), oncall.Human(b.Short), c.runbook(o.Runbook()))),
			})
			comp.AddAlarmAction(actions[b.Topic])
			comp.AddOkAction(actions[b.Topic])
		}
	}
}

// burnAlarm is the burn rate of o over one window (one datapoint of that length) at or
// above b's rate.
func (c *Alarms) burnAlarm(scope constructs.Construct, o oncall.Objective, b oncall.Burn, window string, length time.Duration,
	props *AlarmsProps) awscloudwatch.Alarm {
	return awscloudwatch.NewAlarm(scope, jsii.String(o.AlarmName(b, window)), &awscloudwatch.AlarmProps{
		Metric: burnRate(o, seconds(length), props),
		AlarmDescription: jsii.String(fmt.Sprintf("Burn rate of %s over %s at or above %g (half of the %s burn alert; "+
			"the composite %s notifies). %s", o.Name, oncall.Human(length), b.Rate, strings.ToLower(b.Name), o.AlarmName(b, ""), c.runbook(o.Runbook()))),
		Threshold:          jsii.Number(b.Rate),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		// No traffic spends no budget.
		TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}

// burnRate is o's error ratio over one period divided by its budget (1: the budget lasts
// exactly 30 days), computed from the series the drills read (package oncall).
func burnRate(o oncall.Objective, period awscdk.Duration, props *AlarmsProps) awscloudwatch.IMetric {
	budget := fmt.Sprintf("%g", o.Budget())
	// Ids unique per objective: a graph shows every objective's burn rate together.
	id := strings.ReplaceAll(o.Name, "-", "_") + "_"
	if o.LatencyMetric != "" {
		// PR(:bound) is the percentage of values at or under the bound (CloudWatch
		// statistics definitions, "Percentile rank").
		good := ownMetric(o.LatencyMetric, fmt.Sprintf("PR(:%d)", o.LatencyBound.Milliseconds()), period, nil)
		return mathExpr("(100 - "+id+"good) / 100 / "+budget, map[string]awscloudwatch.IMetric{id + "good": good}, period, o.Name+" burn rate")
	}
	metrics := map[string]awscloudwatch.IMetric{
		id + "bad":   ownMetric(platform.MetricRequests, "Sum", period, map[string]*string{"journey": jsii.String(o.Journey), "class": jsii.String("5xx")}),
		id + "total": ownMetric(platform.MetricRequests, "Sum", period, map[string]*string{"journey": jsii.String(o.Journey)}),
	}
	// A timeout, crash or throttle of the journey's function is a 5xx from API Gateway
	// that the handler never counted.
	var fns []awslambda.Function
	if props.Lambdas != nil {
		for _, f := range props.Functions {
			if fn := props.Lambdas.Function(f.Name); fn != nil && f.Route != nil && platform.Journey(f) == o.Journey {
				fns = append(fns, fn)
			}
		}
	}
	// All of the journey's functions or none: a part would make the ratio mean less than
	// it says. The expression counts as one of the metrics.
	if len(metrics)+2*len(fns)+1 > maxAlarmMetrics {
		fns = nil
	}
	var crashes []string
	for k, fn := range fns {
		opts := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
		e, t := fmt.Sprintf("%serrors%d", id, k), fmt.Sprintf("%sthrottles%d", id, k)
		metrics[e], metrics[t] = fn.MetricErrors(opts), fn.MetricThrottles(opts)
		crashes = append(crashes, "FILL("+e+", 0) + FILL("+t+", 0)")
	}
	lost := "0"
	if len(crashes) > 0 {
		lost = strings.Join(crashes, " + ")
	}
	// Every request lost: the ratio is 1; no request at all: no burn (IF spares the
	// division by zero).
	denom := "(FILL(" + id + "total, 0) + " + lost + ")"
	expr := fmt.Sprintf("IF(%s > 0, (FILL(%sbad, 0) + %s) / %s, 0) / %s", denom, id, lost, denom, budget)
	return mathExpr(expr, metrics, period, o.Name+" burn rate")
}

func mathExpr(expr string, metrics map[string]awscloudwatch.IMetric, period awscdk.Duration, label string) awscloudwatch.IMetric {
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(expr), UsingMetrics: &metrics, Period: period, Label: jsii.String(label),
	})
}

// runbook is the sentence that links a runbook from an alarm's description.
func (c *Alarms) runbook(path string) string { return "Runbook: " + c.runbookBase + path }

// objectiveWidgets are the dashboard's first row: each objective's error budget left over
// its 30 days (100 % untouched, 0 spent, below 0 overspent), then its burn rates over the
// fast burn's hour beside the two thresholds.
func objectiveWidgets() []awscloudwatch.IWidget {
	month := seconds(oncall.Period)
	var left []awscloudwatch.IWidget
	var rates []awscloudwatch.IMetric
	width := float64(24 / len(oncall.Objectives))
	for _, o := range oncall.Objectives {
		remaining := mathExpr("100 * (1 - b)", map[string]awscloudwatch.IMetric{"b": burnRate(o, month, &AlarmsProps{})}, month,
			"% of budget left")
		left = append(left, awscloudwatch.NewSingleValueWidget(&awscloudwatch.SingleValueWidgetProps{
			Title:                jsii.String(fmt.Sprintf("%s (%.1f%%): budget left", o.Title, o.Target*100)),
			Metrics:              &[]awscloudwatch.IMetric{remaining},
			Start:                jsii.String("-P30D"),
			SetPeriodToTimeRange: jsii.Bool(true),
			Width:                jsii.Number(width), Height: jsii.Number(4),
		}))
		rates = append(rates, burnRate(o, seconds(oncall.Fast.Long), &AlarmsProps{}))
	}
	var lines []*awscloudwatch.HorizontalAnnotation
	for _, b := range oncall.Burns {
		lines = append(lines, &awscloudwatch.HorizontalAnnotation{Value: jsii.Number(b.Rate),
			Label: jsii.String(strings.ToLower(b.Name) + " burn (" + b.Topic + ")")})
	}
	ann := make([]*awscloudwatch.HorizontalAnnotation, len(lines))
	copy(ann, lines)
	burn := awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Error-budget burn rate per objective (1 h windows; 1 spends the budget in exactly 30 days)"),
		Left:  &rates, LeftAnnotations: &ann, Width: jsii.Number(24), Height: jsii.Number(6),
	})
	return append(left, burn)
}
