package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// AlertBusEnv names the event bus governance alerts go to (the guard's EventAlerter).
const AlertBusEnv = "ALERT_BUS_NAME"

// NewAlertBus creates the event bus that ownership rejections are published to (source
// "syncassist.governance", detail-type "OwnershipRejection"), when any function publishes
// alerts; ops subscribe to it with their own rules (chat, paging, a ticket). It returns nil
// when no function needs it.
func NewAlertBus(scope constructs.Construct, id, stage string, fns []blueprint.Function) awsevents.IEventBus {
	needed := false
	for _, f := range fns {
		needed = needed || f.PublishesAlerts
	}
	if !needed {
		return nil
	}
	bus := awsevents.NewEventBus(scope, jsii.String(id), &awsevents.EventBusProps{
		EventBusName: jsii.String(blueprint.PhysicalName(stage, "syncassist-alerts")),
		Description:  jsii.String("Governance alerts: ownership rejections from the guarded write"),
	})
	awscdk.NewCfnOutput(scope, jsii.String("AlertBusName"), &awscdk.CfnOutputProps{
		Value:       bus.EventBusName(),
		Description: jsii.String("Event bus of governance alerts (source syncassist.governance); add rules to route them"),
	})
	return bus
}
