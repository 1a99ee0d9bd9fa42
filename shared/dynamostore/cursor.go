package dynamostore

import (
	"encoding/base64"
	"strings"
)

// A list cursor is the base64url (unpadded) of the sort key the page ended at. Every store,
// and every in-memory fake, encodes and decodes it here, so each cursor has one spelling.

var cursorEncoding = base64.RawURLEncoding

// EncodeCursor is the cursor that continues a listing after sortKey.
func EncodeCursor(sortKey string) string { return cursorEncoding.EncodeToString([]byte(sortKey)) }

// DecodeCursor returns the sort key cursor names if it is strictly encoded and starts with
// prefix: a cursor of another listing (another kind, another prefix) cannot move this one
// to a foreign part of the partition.
func DecodeCursor(cursor, prefix string) (sortKey string, ok bool) {
	raw, err := cursorEncoding.DecodeString(cursor)
	// Only the spelling EncodeCursor writes is accepted, so a cursor is a stable name:
	// the decoder also takes non-zero padding bits and skips '\r' and '\n', even when
	// strict (the fuzz passes found both: a finance cursor and "MzA0\nMC4…").
	if err != nil || !strings.HasPrefix(string(raw), prefix) || EncodeCursor(string(raw)) != cursor {
		return "", false
	}
	return string(raw), true
}

// DecodeTimedCursor decodes a cursor whose sort key is prefix, a stored time (FormatTime),
// '#' and the rest (usually the row's id, which the caller validates), returning the key
// and the rest.
func DecodeTimedCursor(cursor, prefix string) (sortKey, rest string, ok bool) {
	sortKey, ok = DecodeCursor(cursor, prefix)
	if !ok {
		return "", "", false
	}
	at, rest, ok := strings.Cut(sortKey[len(prefix):], "#")
	if !ok || len(at) != len(timeLayout) {
		return "", "", false
	}
	if _, err := ParseTime(at); err != nil {
		return "", "", false
	}
	return sortKey, rest, true
}
