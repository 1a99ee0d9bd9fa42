package tenanttest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func TestMemoryStoreContract(t *testing.T) {
	tenanttest.RunStoreContract(t, func(*testing.T) tenant.Store { return tenanttest.NewStore() })
}
