package sessiontest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/session/sessiontest"
)

func TestMemoryStoreContract(t *testing.T) {
	sessiontest.RunStoreContract(t, func(t *testing.T) sessiontest.Backend {
		s := sessiontest.NewStore()
		return sessiontest.Backend{Store: s, Dump: func(*testing.T) []string { return s.Dump() }}
	})
}
