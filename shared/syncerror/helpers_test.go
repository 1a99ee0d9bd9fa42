package syncerror_test

import (
	"io"
	"log/slog"
	"time"
)

var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func clockFunc() time.Time { return clock }
