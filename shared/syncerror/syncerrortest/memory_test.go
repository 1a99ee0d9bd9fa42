package syncerrortest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func TestMemoryClaimStoreContract(t *testing.T) {
	syncerrortest.RunClaimStoreContract(t, func(*testing.T) syncerror.ClaimStore {
		return syncerrortest.NewClaimStore()
	})
}

func TestMemoryAssistStoreContract(t *testing.T) {
	syncerrortest.RunAssistStoreContract(t, func(*testing.T) syncerrortest.AssistStore {
		return syncerrortest.NewClaimStore()
	})
}
