package financetest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
)

func TestMemoryStoreContract(t *testing.T) {
	financetest.RunStoreContract(t, func(*testing.T) finance.Store { return financetest.NewStore() })
}
