package aiclient_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func TestAIRecordsContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		aitest.RunRecordsContract(t, func(t *testing.T) aitest.Records {
			db, table := e.Tables(t)
			s := aiclient.Records{Store: audit.NewAIRecords(db, table(blueprint.TableAIRecords))}
			return aitest.Records{TraceStore: s, CostStore: s, ReadTraces: s.Traces, ReadCosts: s.Costs}
		})
	})
}
