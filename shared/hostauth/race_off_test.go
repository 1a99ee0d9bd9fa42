//go:build !race

package hostauth_test

// floodSize is the forgery flood of issue 28: 200,000 webhooks with random tenants.
const floodSize = 200_000
