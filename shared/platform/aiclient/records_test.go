package aiclient_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestAIRecordsContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		aitest.RunRecordsContract(t, func(t *testing.T) aitest.Records {
			db, _ := e.Clients(t)
			stage := emutest.Stage(t)
			if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
				t.Fatal(err)
			}
			s := aiclient.Records{Store: audit.NewAIRecords(db, blueprint.PhysicalName(stage, blueprint.TableAIRecords))}
			return aitest.Records{TraceStore: s, CostStore: s, ReadTraces: s.Traces, ReadCosts: s.Costs}
		})
	})
}
