package emutest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// Every claim in the service (an ingest's errorId, a flow's cross-reference, a lease) is a
// conditional write that DynamoDB documents as atomic: of writers racing for one item, one
// wins. moto_server 5.2.1 checks the condition and then writes without a lock, so on the bare
// server two could win (the demo's run 149, 2026-12-02); the gate in front of it
// (emulators.Moto.Endpoint) lets one DynamoDB request through at a time. This holds the
// gate, and dynalite, to DynamoDB's answer.
func TestConcurrentConditionalPutsOfOneItemOneWins(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		name := table(blueprint.TableFlows)
		const rounds, writers = 16, 16
		for round := range rounds {
			won := make(chan int, writers)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(name),
						Item: map[string]types.AttributeValue{"tenant_id": dynamostore.Str("t1"),
							"sk": dynamostore.Str(fmt.Sprintf("claim#%d", round)), "by": dynamostore.Num(int64(w))},
						ConditionExpression: aws.String("attribute_not_exists(sk)")})
					switch {
					case err == nil:
						won <- w
					case !dynamostore.IsConditionFailed(err):
						t.Errorf("round %d, writer %d: %v", round, w, err)
					}
				}()
			}
			wg.Wait()
			close(won)
			if n := len(won); n != 1 {
				t.Fatalf("round %d: %d of %d concurrent conditional puts of one item succeeded; want one", round, n, writers)
			}
		}
	})
}
