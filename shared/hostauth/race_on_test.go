//go:build race

package hostauth_test

// floodSize is smaller under the race detector, which makes each request ~25 times slower
// (still twice the caches' bound, so eviction is exercised); make test-go also runs the
// flood without it, at the full 200,000.
const floodSize = 20_000
