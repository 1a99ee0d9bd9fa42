package retries_test

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror/retries"
)

func TestParseRetrySchedule(t *testing.T) {
	got, err := retries.ParseRetrySchedule("5s, 10s,1m")
	if err != nil || len(got) != 3 || got[0] != 5*time.Second || got[2] != time.Minute {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "5s,", "0s", "-1m", "soon"} {
		if _, err := retries.ParseRetrySchedule(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
