//go:build !race

package templatetests

// raceDetector is set under -race (see race_test.go).
const raceDetector = false
