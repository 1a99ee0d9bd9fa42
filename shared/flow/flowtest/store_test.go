package flowtest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

func TestStoreContract(t *testing.T) {
	flowtest.StoreContract(t, func(*testing.T) flowtest.StoreHarness {
		s := &flowtest.Store{}
		return flowtest.StoreHarness{Store: s, Twice: s.SentTwice(), FailingPut: s.FailingPut, Reads: s.Reads}
	})
}
