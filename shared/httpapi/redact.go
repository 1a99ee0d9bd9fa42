package httpapi

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/syncassist/syncassist/shared/dlp"
)

// RedactLogs wraps a log handler so every record it writes has passed the DLP's record
// policy (redact everything), as audit and trace records do: the message, and each
// attribute as a JSON member, so its name gives the value its context (a "password"
// attribute is redacted whatever it holds). Before, each caller redacted what it logged,
// and one that did not (a vendor's error quoting a token, a payload in an error) wrote it
// out in full.
//
// A record whose attributes hold no finding is passed on as it came; an attribute with
// one is replaced by its redacted JSON (written as it stands by a JSON handler). An
// attribute that cannot be rendered as JSON is logged as its redacted text, and a message
// or attribute the scan fails on is withheld, never written unscanned.
func RedactLogs(next slog.Handler) slog.Handler { return redactingHandler{next} }

type redactingHandler struct{ next slog.Handler }

// logScanner is shared by every handler: a Scanner is safe for concurrent use and learns
// the attribute names it meets.
var logScanner = dlp.NewScanner()

// withheld stands for text the scan could not read (fail closed).
const withheld = "(withheld: the DLP scan failed)"

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	attrs := make([]slog.Attr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return true
	})
	out := slog.NewRecord(r.Time, r.Level, redactText(r.Message), r.PC)
	out.AddAttrs(redactAttrs(attrs)...)
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return redactingHandler{h.next.WithAttrs(redactAttrs(attrs))}
}

// redactAttrs scans attrs as one JSON object, and only when it holds a finding each
// attribute on its own (redactAttr): a record's attributes are mostly clean, and one scan
// costs a fraction of one per attribute.
func redactAttrs(attrs []slog.Attr) []slog.Attr {
	// Resolved once: what is scanned is what is written (a LogValuer asked twice may not
	// answer the same).
	attrs = resolved(attrs)
	doc, ok := appendObject(nil, attrs)
	if ok {
		if res, err := logScanner.ScanJSON(dlp.Record, doc); err == nil && len(res.Findings) == 0 {
			return attrs
		}
	}
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a)
	}
	return red
}

// resolved is attrs with every LogValuer resolved, in groups too.
func resolved(attrs []slog.Attr) []slog.Attr {
	if !slices.ContainsFunc(attrs, func(a slog.Attr) bool {
		k := a.Value.Kind()
		return k == slog.KindLogValuer || k == slog.KindGroup
	}) {
		return attrs // nothing to resolve: no copy
	}
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		a.Value = a.Value.Resolve()
		if a.Value.Kind() == slog.KindGroup {
			a.Value = slog.GroupValue(resolved(a.Value.Group())...)
		}
		out[i] = a
	}
	return out
}

// appendObject appends attrs to b as a JSON object, groups as objects within it; false
// when a value does not encode (redactAttr then handles each). Strings and numbers, most
// of what is logged, are written without encoding/json's reflection.
func appendObject(b []byte, attrs []slog.Attr) ([]byte, bool) {
	b = append(b, '{')
	for i, a := range attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, a.Key), ':')
		v := a.Value.Resolve()
		switch v.Kind() {
		case slog.KindGroup:
			var ok bool
			if b, ok = appendObject(b, v.Group()); !ok {
				return b, false
			}
		case slog.KindString:
			b = appendString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindFloat64:
			if f := v.Float64(); !math.IsNaN(f) && !math.IsInf(f, 0) {
				b = strconv.AppendFloat(b, f, 'f', -1, 64)
			} else {
				b = append(b, "null"...)
			}
		case slog.KindBool, slog.KindDuration, slog.KindTime:
			b = append(b, "null"...) // nothing the scan reads
		default:
			enc, err := json.Marshal(loggable(v))
			if err != nil {
				return b, false
			}
			b = append(b, enc...)
		}
	}
	return append(b, '}'), true
}

// appendString appends s as a JSON string: as it is when it is printable ASCII with
// nothing to escape, else as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			enc, _ := json.Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h.next.WithGroup(redactText(name))}
}

func redactText(s string) string {
	out, err := logScanner.RedactString(dlp.Record, s)
	if err != nil {
		return withheld
	}
	return out
}

// redactAttr scans a as the member {key: value} of a JSON object. A group's members are
// scanned one by one, under the group's name.
func redactAttr(a slog.Attr) slog.Attr {
	a.Value = a.Value.Resolve()
	switch a.Value.Kind() {
	case slog.KindGroup:
		members := a.Value.Group()
		red := make([]slog.Attr, len(members))
		for i, m := range members {
			red[i] = redactAttr(m)
		}
		return slog.Attr{Key: redactText(a.Key), Value: slog.GroupValue(red...)}
	case slog.KindBool, slog.KindDuration, slog.KindTime:
		return slog.Attr{Key: redactText(a.Key), Value: a.Value}
	}
	member, err := json.Marshal(map[string]any{a.Key: loggable(a.Value)})
	if err != nil {
		// What the JSON handler could not render either (a channel, a cycle, raw JSON that
		// is not JSON): its text, bytes as text.
		text, ok := bytesText(a.Value.Any())
		if !ok {
			text = fmt.Sprint(a.Value.Any())
		}
		return slog.String(redactText(a.Key), redactText(text))
	}
	res, err := logScanner.ScanJSON(dlp.Record, member)
	if err != nil {
		return slog.String(redactText(a.Key), withheld)
	}
	if len(res.Findings) == 0 {
		return a
	}
	var red map[string]json.RawMessage
	if err := json.Unmarshal(res.Output, &red); err != nil || len(red) != 1 {
		return slog.String(redactText(a.Key), withheld)
	}
	for k, v := range red {
		a = slog.Any(k, v)
	}
	return a
}

// loggable is v as the JSON handler renders it (an error by its text, a marshaler by
// itself), but for bytes without a rendering of their own (a body): their text, which the
// scan reads. The handler writes those as base64, which it cannot read and anyone can
// decode; logged as it came when the text holds nothing.
func loggable(v slog.Value) any {
	switch x := v.Any().(type) {
	case error:
		return x.Error()
	case json.Marshaler, encoding.TextMarshaler:
		return x
	default:
		if text, ok := bytesText(x); ok {
			return text
		}
		return x
	}
}

// bytesText is x's bytes as text when x is a byte slice of any named type.
func bytesText(x any) (string, bool) {
	if rv := reflect.ValueOf(x); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return string(rv.Bytes()), true
	}
	return "", false
}
