// Package dynamotest gives the feature's tests the DynamoDB store on an emulator's fresh
// tables, so each room's tests can run on the real store as well as the in-memory fake.
//
// It may import the core and the dynamo room only.
package dynamotest

import (
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
)

// Claims is the store on the processed table of e's fresh tables for t (a test or a
// benchmark).
func Claims(t testing.TB, e emutest.Emulator) *dynamo.DynamoClaims {
	db, table := e.Tables(t)
	return dynamo.NewDynamoClaims(db, table(blueprint.TableProcessed))
}
