package retry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/retry"
)

var (
	errThrottled = errors.New("throttled")
	errChanged   = errors.New("state changed")
)

func isChanged(err error) bool { return errors.Is(err, errChanged) }

func TestStore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		errs  []error // what op answers, call by call
		want  error
		calls int
	}{
		{"first try", []error{nil}, nil, 1},
		{"after a throttle", []error{errThrottled, nil}, nil, 2},
		{"a final answer stops it", []error{errChanged, nil}, errChanged, 1},
		{"gives up after three", []error{errThrottled, errThrottled, errThrottled, nil}, errThrottled, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := retry.Store(context.Background(), func() error { calls++; return tc.errs[calls-1] }, isChanged)
			if !errors.Is(err, tc.want) || err == nil && tc.want != nil || calls != tc.calls {
				t.Errorf("err %v after %d calls, want %v after %d", err, calls, tc.want, tc.calls)
			}
		})
	}
}

func TestStoreStopsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := retry.Store(ctx, func() error { calls++; cancel(); return errThrottled }, isChanged)
	if !errors.Is(err, errThrottled) || calls != 1 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}
