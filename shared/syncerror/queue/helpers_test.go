package queue_test

import (
	"time"

	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

var clock = roomtest.Clock

func clockFunc() time.Time { return clock }
