package dynamostore_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

func TestCursorDecodesOnlyItsOwnSpellingAndPrefix(t *testing.T) {
	at := dynamostore.FormatTime(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	good := dynamostore.EncodeCursor("rej#" + at + "#r1")
	if key, rest, ok := dynamostore.DecodeTimedCursor(good, "rej#"); !ok || key != "rej#"+at+"#r1" || rest != "r1" {
		t.Fatalf("own cursor: %q %q %v", key, rest, ok)
	}
	// "YQ" is "a"; "YR" decodes to "a" too without Strict (non-zero padding bits).
	if _, ok := dynamostore.DecodeCursor("YQ", "a"); !ok {
		t.Fatal("canonical spelling refused")
	}
	for name, c := range map[string]string{
		"padding bits": "YR",
		"padded":       base64.URLEncoding.EncodeToString([]byte("rej#" + at + "#r1")),
		"std alphabet": strings.NewReplacer("-", "+", "_", "/").Replace(dynamostore.EncodeCursor("loop#" + at + "#\xfb\xff")),
		"other prefix": dynamostore.EncodeCursor("loop#" + at + "#r1"),
		"no time":      dynamostore.EncodeCursor("rej#r1"),
		"short time":   dynamostore.EncodeCursor("rej#2026-11-22T10:00:00Z#r1"),
		"bad time":     dynamostore.EncodeCursor("rej#" + strings.Replace(at, "11", "13", 1) + "#r1"),
		"no separator": dynamostore.EncodeCursor("rej#" + at),
		"not base64":   "!!",
	} {
		if _, _, ok := dynamostore.DecodeTimedCursor(c, "rej#"); ok {
			t.Errorf("%s: %q accepted", name, c)
		}
	}
}

// Any text either is refused or names a key under the prefix that encodes back to itself.
func FuzzDecodeTimedCursor(f *testing.F) {
	f.Add(dynamostore.EncodeCursor("2026-11-22T10:00:00.000000000Z#id"))
	for _, s := range []string{"", "=", "#", "YR", "MjAyNg", "2026-11-22T10:00:00Z#x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		key, rest, ok := dynamostore.DecodeTimedCursor(cursor, "")
		if !ok {
			return
		}
		if dynamostore.EncodeCursor(key) != cursor || !strings.HasSuffix(key, "#"+rest) {
			t.Fatalf("%q decoded to %q %q", cursor, key, rest)
		}
	})
}
