// Package roomtest is the fixture the sync-error rooms' tests share: the operator's
// decisions over the queue's reads over the approval policy, on the in-memory store
// (OpFixture), and that stack with the diagnosis worker, the scripted AI, the record
// reader and the auto rules' insights (AssistFixture). The queue's, the policy's, the
// decisions' and the automation's tests each build it, so it sits above all of them.
//
// It is for tests only: no file of the product imports it (functions/layers_test.go
// holds that).
package roomtest
