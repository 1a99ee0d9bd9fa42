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
