package syncerror

// What an approve's approver confirmed. The group view and the bulk preview show each
// fix (class and changes) under a key; the approver confirms "this writes <changes> to
// each of these records", and the approve carries those keys. The detail shows the fix an
// approve without an edit writes under its key too (fixKey), and a single approve that
// sends it is held to it the same way. Each approve writes only a fix whose key is among
// them: a row whose fix changed after the listing or the detail (an edit now kept on the
// row, a re-diagnosis, an edit awaiting a second approver) would otherwise be written
// with values nobody confirmed.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// CodeFixChanged is the problem code of an item whose fix is not one the approver
// confirmed; nothing was written for it.
const CodeFixChanged = "fix_changed"

// ConfirmKey is the key a fix is listed and confirmed under: a digest of the class and the
// changes (path and the value written, by path), nothing about the record, so that rows
// writing the same values share it. Its encoding is the groups' since they were
// introduced, so a key listed before a deploy still confirms the same fix after it.
func ConfirmKey(class string, fix []FieldChange) (string, bool) {
	type change struct {
		Path  string `json:"path"`
		After any    `json:"after"`
	}
	changes := make([]change, 0, len(fix))
	for _, f := range fix {
		changes = append(changes, change{Path: f.Path, After: f.After})
	}
	slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.Path, b.Path) })
	b, err := json.Marshal(struct {
		Class   string   `json:"c"`
		Changes []change `json:"x"`
	}{class, changes})
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(b)
	return "g_" + base64.RawURLEncoding.EncodeToString(sum[:12]), true
}

type confirmedKeys struct{}

// WithConfirmed carries the keys an approver confirmed to each approve: a bulk approve's
// fixKeys to each item's, a single approve's fixKey (the detail's) to its own. It only
// narrows: a confirmation within one is of the keys both name, so nothing a caller sends
// widens what a bulk route confirmed, and an approve without one is not judged.
func WithConfirmed(ctx context.Context, keys []string) context.Context {
	if outer, ok := ctx.Value(confirmedKeys{}).([]string); ok {
		keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !slices.Contains(outer, k) })
	}
	return context.WithValue(ctx, confirmedKeys{}, keys)
}

// Unconfirmed reports whether the approve runs under a confirmation (WithConfirmed) that
// does not name this fix. An approve without one (a single approve that sent no fixKey)
// is not judged here.
func Unconfirmed(ctx context.Context, class string, fix []FieldChange) bool {
	keys, ok := ctx.Value(confirmedKeys{}).([]string)
	if !ok {
		return false
	}
	k, ok := ConfirmKey(class, fix)
	return !ok || !slices.Contains(keys, k)
}

// WriteFixChanged answers an approve whose fix is not one the approver confirmed. It is
// written before any lease or write, so the row is as it was.
func WriteFixChanged(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, CodeFixChanged,
		"Not written: its fix changed since it was shown to you (or was not among the fixes shown). Review the fix as it is now before approving it."))
}
