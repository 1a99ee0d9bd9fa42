package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/oncall"
	"github.com/syncassist/syncassist/shared/blueprint"
)

// NewQueries saves the runbooks' Logs Insights queries (oncall.Queries) over the functions'
// log group, under a folder named after the stage so two stages in one account do not
// collide. The raw definition is used because the runbooks quote the query text verbatim,
// which awslogs.QueryString would rebuild from parts.
func NewQueries(scope constructs.Construct, id, stage string, logs awslogs.ILogGroup) {
	c := constructs.NewConstruct(scope, jsii.String(id))
	for _, q := range oncall.Queries {
		awslogs.NewCfnQueryDefinition(c, jsii.String(constructID(q.Name)), &awslogs.CfnQueryDefinitionProps{
			Name:          jsii.String(blueprint.PhysicalName(stage, q.FullName())),
			QueryString:   jsii.String(q.Text),
			LogGroupNames: &[]any{logs.LogGroupName()},
		})
	}
}
