package automation_test

import "github.com/syncassist/syncassist/shared/syncerror/roomtest"

var clock = roomtest.Clock
