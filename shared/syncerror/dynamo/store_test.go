package dynamo_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo/dynamotest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest/storecontract"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func newDynamoClaims(t *testing.T, e emutest.Emulator) *dynamo.DynamoClaims {
	return dynamotest.Claims(t, e)
}

func TestDynamoClaimsContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		storecontract.RunClaimStoreContract(t, func(t *testing.T) syncerror.ClaimStore { return newDynamoClaims(t, e) })
	})
}

func TestDynamoAssistStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		storecontract.RunAssistStoreContract(t, func(t *testing.T) storecontract.AssistStore { return newDynamoClaims(t, e) })
	})
}
