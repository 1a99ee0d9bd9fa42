package syncerrortest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest/storecontract"
)

func TestMemoryClaimStoreContract(t *testing.T) {
	storecontract.RunClaimStoreContract(t, func(*testing.T) syncerror.ClaimStore {
		return syncerrortest.NewClaimStore()
	})
}

func TestMemoryAssistStoreContract(t *testing.T) {
	storecontract.RunAssistStoreContract(t, func(*testing.T) storecontract.AssistStore {
		return syncerrortest.NewClaimStore()
	})
}
