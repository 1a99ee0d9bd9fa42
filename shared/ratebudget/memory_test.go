package ratebudget_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/ratebudget"
	"github.com/syncassist/syncassist/shared/ratebudget/ratebudgettest"
)

func TestMemoryStoreContract(t *testing.T) {
	ratebudgettest.RunStoreContract(t, func(*testing.T) ratebudget.Store { return ratebudget.NewMemoryStore() })
}
