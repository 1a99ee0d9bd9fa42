package stack

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// SchedulesProps configures NewSchedules.
type SchedulesProps struct {
	// Functions are scanned for schedules; the others are ignored.
	Functions []blueprint.Function
	Lambdas   *Functions
}

// Schedules holds one EventBridge rule per scheduled function.
type Schedules struct {
	constructs.Construct
}

// NewSchedules creates a rate rule for every function with a Schedule.
func NewSchedules(scope constructs.Construct, id string, props *SchedulesProps) *Schedules {
	c := &Schedules{Construct: constructs.NewConstruct(scope, jsii.String(id))}
	for _, f := range props.Functions {
		fn := props.Lambdas.Function(f.Name)
		if f.Schedule < time.Minute || f.Schedule%time.Minute != 0 || fn == nil {
			continue // reported by validate; EventBridge rates count whole minutes
		}
		awsevents.NewRule(c.Construct, jsii.String(constructID(f.Name)), &awsevents.RuleProps{
			Description: jsii.String("Runs " + f.Name + " every " + f.Schedule.String()),
			Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(f.Schedule.Minutes()))),
			Targets: &[]awsevents.IRuleTarget{
				awseventstargets.NewLambdaFunction(fn, &awseventstargets.LambdaFunctionProps{
					// A run that could not be delivered before the next one is due is
					// superseded by it; retrying it for the default 24 hours would only
					// stack runs up.
					MaxEventAge:   seconds(maxEventAge(f.Schedule)),
					RetryAttempts: jsii.Number(2),
				}),
			},
		})
	}
	return c
}

// maxEventAge clamps the schedule interval to what EventBridge accepts (1 minute to 24 hours).
func maxEventAge(interval time.Duration) time.Duration {
	return min(max(interval, time.Minute), 24*time.Hour)
}
