package compose

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/sqsqueue"
)

// Provisioned is what Provision created.
type Provisioned struct {
	Queues map[string]sqsqueue.Created
}

// Env returns the variables a function needs to find the provisioned queues (tables follow
// from STAGE).
func (p Provisioned) Env() map[string]string {
	env := map[string]string{}
	for _, q := range blueprint.Queues {
		env[q.EnvVar] = p.Queues[q.Name].URL
	}
	return env
}

// Provision creates the blueprint's tables and queues for stage on whatever endpoint the
// SDK configuration points at: the emulators or LocalStack. In AWS the CDK stack owns them.
// It is idempotent.
func Provision(ctx context.Context, cfg aws.Config, stage string, opt sqsqueue.CreateOptions) (Provisioned, error) {
	if err := dynamostore.CreateTables(ctx, dynamodb.NewFromConfig(cfg), stage); err != nil {
		return Provisioned{}, err
	}
	queues, err := sqsqueue.CreateQueues(ctx, sqs.NewFromConfig(cfg), stage, opt)
	if err != nil {
		return Provisioned{}, err
	}
	return Provisioned{Queues: queues}, nil
}
