package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/governance"
)

// DashboardProps configures NewDashboard.
type DashboardProps struct {
	Stage   string
	Queues  *Queues
	Lambdas *Functions
	API     awsapigatewayv2.HttpApi
}

// NewDashboard is the stage's CloudWatch dashboard, one screen for the ops engineer: the
// service levels (budget left, burn rates; docs/operations.md), then the causes: what
// arrives (ingest outcomes, API traffic and 5xx), what waits (diagnosis queue depth, age,
// dead letters), what the AI does (diagnoses, latency, class mix) and costs (per tenant per
// day), what people decide (approves by feature and outcome), what the guard decides (by
// decision and target system; ownership rejections, loops blocked), and errors per
// function. The service's own series come from its embedded metric lines
// (package emf).
func NewDashboard(scope constructs.Construct, id string, props *DashboardProps) awscloudwatch.Dashboard {
	d := awscloudwatch.NewDashboard(scope, jsii.String(id), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(blueprint.PhysicalName(props.Stage, "syncassist")),
	})
	period := awscdk.Duration_Minutes(jsii.Number(5))
	own := func(name, stat string, dims map[string]*string) awscloudwatch.IMetric {
		return ownMetric(name, stat, period, dims)
	}
	search := func(expr, label string) awscloudwatch.IMetric {
		return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{Expression: jsii.String(expr),
			Label: jsii.String(label), Period: period})
	}
	graph := func(title string, left ...awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: &left,
			Width: jsii.Number(8), Height: jsii.Number(6)})
	}
	sum := jsii.String("Sum")
	opts := &awscloudwatch.MetricOptions{Period: period, Statistic: sum}

	ingest := graph("Sync errors in, by outcome",
		own("SyncErrorsIngested", "Sum", map[string]*string{"outcome": jsii.String("accepted")}),
		own("SyncErrorsIngested", "Sum", map[string]*string{"outcome": jsii.String("duplicate")}))
	var api awscloudwatch.IWidget
	if props.API != nil {
		api = graph("HTTP API requests and 5xx", props.API.MetricCount(opts), props.API.MetricServerError(opts))
	}
	var queue awscloudwatch.IWidget
	if q := props.Queues.Queue(blueprint.Diagnosis.Name); q != nil {
		depth := []awscloudwatch.IMetric{q.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")})}
		for _, name := range props.Queues.DeadLetterNames() {
			depth = append(depth, props.Queues.Queue(name).MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}))
		}
		age := []awscloudwatch.IMetric{q.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")})}
		queue = awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String("Diagnosis queue: depth (and dead letters), oldest message age"),
			Left: &depth, Right: &age, Width: jsii.Number(8), Height: jsii.Number(6)})
	}
	diagnoses := graph("Diagnoses and latency (p50, p99)",
		own("Diagnoses", "Sum", nil), own("DiagnosisLatency", "p50", nil), own("DiagnosisLatency", "p99", nil))
	classes := graph("Diagnoses by class", search(`SEARCH('{`+emf.Namespace+`,class} MetricName="Diagnoses"', 'Sum', 300)`, "by class"))
	approves := graph("Approves by feature and outcome",
		search(`SEARCH('{`+emf.Namespace+`,feature,outcome} MetricName="Approves"', 'Sum', 300)`, "approves"))
	gov := graph("Ownership rejections, loops blocked and reconcile runs",
		own(governance.MetricOwnershipRejects, "Sum", nil), own(governance.MetricGuardDecisions, "Sum", loopsBlocked),
		own("ReconcileRuns", "Sum", nil), own("ReconcileErrors", "Sum", nil))
	decisions := graph("Guard decisions by decision and target system",
		search(`SEARCH('{`+emf.Namespace+`,decision,system} MetricName="`+governance.MetricGuardDecisions+`"', 'Sum', 300)`, "decisions"))
	// A day per bar over two weeks: what each tenant's inferences were billed.
	day := awscdk.Duration_Days(jsii.Number(1))
	costs := []awscloudwatch.IMetric{awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(`SEARCH('{` + emf.Namespace + `,tenant} MetricName="` + ai.MetricAICost + `"', 'Sum', 86400)`),
		Label:      jsii.String("USD"), Period: day,
	})}
	aiCost := awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String("AI cost per tenant per day (USD)"),
		Left: &costs, Period: day, Start: jsii.String("-P14D"), View: awscloudwatch.GraphWidgetView_BAR, Stacked: jsii.Bool(true),
		Width: jsii.Number(8), Height: jsii.Number(6)})
	var errs []awscloudwatch.IMetric
	for _, name := range props.Lambdas.Names() {
		errs = append(errs, props.Lambdas.Function(name).MetricErrors(&awscloudwatch.MetricOptions{Period: period, Statistic: sum,
			Label: jsii.String(name)}))
	}
	failures := awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String("Errors per function"), Left: &errs,
		Width: jsii.Number(24), Height: jsii.Number(6), Stacked: jsii.Bool(true)})

	// The objectives first: are users hurt, and how fast is the budget going; the causes
	// below.
	d.AddWidgets(objectiveWidgets()...)
	rows := [][]awscloudwatch.IWidget{{ingest, api, queue}, {diagnoses, classes, aiCost}, {approves, decisions, gov}, {failures}}
	for _, row := range rows {
		var ws []awscloudwatch.IWidget
		for _, w := range row {
			if w != nil {
				ws = append(ws, w)
			}
		}
		d.AddWidgets(ws...)
	}
	return d
}

// ownMetric is one of the service's own metrics (namespace emf.Namespace); no dims is the
// service-wide aggregate every EMF line also reports.
func ownMetric(name, stat string, period awscdk.Duration, dims map[string]*string) awscloudwatch.IMetric {
	props := &awscloudwatch.MetricProps{Namespace: jsii.String(emf.Namespace), MetricName: jsii.String(name),
		Statistic: jsii.String(stat), Period: period}
	if len(dims) > 0 {
		props.DimensionsMap = &dims
	}
	return awscloudwatch.NewMetric(props)
}
