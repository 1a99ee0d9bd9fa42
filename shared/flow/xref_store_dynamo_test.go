package flow_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

// TestDynamoXRefContract runs the cross-reference's contract against the flows table on
// the DynamoDB emulator.
func TestDynamoXRefContract(t *testing.T) {
	flowtest.XRefContract(t, func(t *testing.T) flow.XRefStore { return newStore(t) })
}
