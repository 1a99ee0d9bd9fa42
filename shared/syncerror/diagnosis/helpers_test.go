package diagnosis_test

import "time"

var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func clockFunc() time.Time { return clock }
