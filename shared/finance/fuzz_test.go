package finance_test

import (
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/finance"
)

// Cursor decoding: any text is refused with ErrBadCursor or names a valid row id, and a
// decoded cursor encodes back to itself.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(finance.EncodeCursor("2026-11-22T10:00:00.000000000Z#FA-1"))
	for _, s := range []string{"", "=", "#", "MjAyNg", "bm90IGEgY3Vyc29y", "2026-11-22T10:00:00Z#FA-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		key, id, err := finance.DecodeCursor(cursor)
		if err != nil {
			if !errors.Is(err, finance.ErrBadCursor) {
				t.Fatalf("%q: %v", cursor, err)
			}
			return
		}
		if !finance.ValidID(id) || finance.EncodeCursor(key) != cursor {
			t.Fatalf("%q decoded to %q %q", cursor, key, id)
		}
	})
}
