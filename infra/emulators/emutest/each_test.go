package emutest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// The two halves of Each run at the same time: each waits until the other has begun, which
// one after the other could not (the first would wait out the deadline).
func TestEachRunsTheHalvesSideBySide(t *testing.T) {
	var mu sync.Mutex
	begun := map[string]bool{}
	both := make(chan struct{})
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		mu.Lock()
		begun[e.Name] = true
		if len(begun) == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the other half had not begun after 30 s: the halves run one after the other", e.Name)
		}
	})
}

// Tables creates a table when its name is first asked for, once, and no other: a store's
// test pays for its own table only.
func TestTablesCreatesATableOnFirstAskOnly(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		audit := table(blueprint.TableAudit)
		stage, _, _ := strings.Cut(audit, "-")
		if again := table(blueprint.TableAudit); again != audit {
			t.Fatalf("the name changed: %s then %s", audit, again)
		}
		if got, want := existing(t, db, stage), []string{blueprint.TableAudit}; !slices.Equal(got, want) {
			t.Fatalf("tables of stage %s = %v, want %v", stage, got, want)
		}
		flows := table(blueprint.TableFlows)
		if got, want := existing(t, db, stage), []string{blueprint.TableAudit, blueprint.TableFlows}; !slices.Equal(got, want) {
			t.Fatalf("tables of stage %s = %v, want %v", stage, got, want)
		}
		out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: &flows})
		if err != nil || len(out.Table.GlobalSecondaryIndexes) != len(blueprint.Flows.Indexes) {
			t.Fatalf("flows table as created: %+v err=%v, want the blueprint's %d indexes", out, err, len(blueprint.Flows.Indexes))
		}
	})
}

// existing names the blueprint tables that exist under stage, in the blueprint's order.
func existing(t *testing.T, db *dynamodb.Client, stage string) []string {
	t.Helper()
	var names []string
	for _, tb := range blueprint.Tables {
		name := blueprint.PhysicalName(stage, tb.Name)
		_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: &name})
		var missing *types.ResourceNotFoundException
		switch {
		case err == nil:
			names = append(names, tb.Name)
		case !errors.As(err, &missing):
			t.Fatal(err)
		}
	}
	return names
}

func TestOpNameNamesTheServiceAndOperation(t *testing.T) {
	if s, op := emutest.OpName(&dynamodb.PutItemInput{}); s != "dynamodb" || op != "PutItem" {
		t.Fatalf("OpName = %q %q, want dynamodb PutItem", s, op)
	}
}
