package audittest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
)

func TestMemoryStoreContract(t *testing.T) {
	audittest.RunStoreContract(t, func(*testing.T) audit.Store { return &audittest.Store{} })
}
