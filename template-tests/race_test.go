//go:build race

package templatetests

// raceDetector is set under -race. jsii-runtime-go's Close races with the goroutine it
// starts to watch the Node child (both call exec.Cmd.Wait and read its fields without
// the lock; v1.133.0, as on main), which the race detector reports as a failure of the
// whole package after every test passed. Under -race the tests leave the child to exit on
// the end of its stdin when the test binary exits, which leaves jsii's temporary copy of
// its runtime (under 2 MB) in the temporary directory.
const raceDetector = true
