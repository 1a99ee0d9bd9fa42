package flowtest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

func TestXRefsContract(t *testing.T) {
	flowtest.XRefContract(t, func(*testing.T) flow.XRefStore { return &flowtest.XRefs{} })
}
