package audittest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/audit/audittest"
)

func TestMemoryStoreContract(t *testing.T) {
	audittest.RunStoreContract(t, func(*testing.T) audittest.Backend { return audittest.Backend{Store: &audittest.Store{}} })
}
