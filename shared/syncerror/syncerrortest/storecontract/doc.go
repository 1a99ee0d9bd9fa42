// Package storecontract holds the contract suites every store of the sync-error feature
// must pass: the claim rows (RunClaimStoreContract) and the documents of the approval
// policy, learning and automation (RunAssistStoreContract). The in-memory fake
// (syncerrortest) and the DynamoDB store (dynamo) both run them.
//
// It may import the core and syncerrortest only.
package storecontract
