package dynamostore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func TestCreateTablesIsIdempotent(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, _ := e.Clients(t)
		stage := emutest.Stage(t)
		for i := 0; i < 2; i++ {
			if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
	})
}

// Local tables project each index as the blueprint says, as the deployed ones do
// (template-tests' TestTableIndexes): a reader that needs an attribute its index does not
// project fails on the emulators, not first in AWS (issue 37 §1).
func TestCreateTablesProjectsAsTheBlueprint(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, _ := e.Clients(t)
		stage := emutest.Stage(t)
		ctx := context.Background()
		if err := dynamostore.CreateTables(ctx, db, stage); err != nil {
			t.Fatal(err)
		}
		for _, tb := range blueprint.Tables {
			out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(blueprint.PhysicalName(stage, tb.Name))})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*types.Projection{}
			for _, ix := range out.Table.GlobalSecondaryIndexes {
				got[aws.ToString(ix.IndexName)] = ix.Projection
			}
			for _, ix := range tb.Indexes {
				p := got[ix.Name]
				if p == nil || string(p.ProjectionType) != ix.Projection.Type() ||
					!slices.Equal(slices.Sorted(slices.Values(p.NonKeyAttributes)), slices.Sorted(slices.Values(ix.Projection.Include))) {
					t.Errorf("%s/%s projects %+v, want %s %v", tb.Name, ix.Name, p, ix.Projection.Type(), ix.Projection.Include)
				}
			}
		}
	})
}
