package decisions

import (
	"github.com/syncassist/syncassist/shared/jsonvalue"
	"github.com/syncassist/syncassist/shared/syncerror"

	"context"
	"encoding/json"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// typedFix types fix by the target's fields, or answers 400 and returns false. Where the
// metadata cannot be read the fix is kept exactly as the JSON the person sent: refusing
// every approve while a vendor's metadata endpoint is down would block the fixes people
// need most, and guessing a type (a number from "01067") is what this exists to stop;
// the vendor then judges the value itself, as it did before.
func (o *Service) typedFix(w http.ResponseWriter, r *http.Request, c syncerror.Claim, fix []syncerror.FieldChange) ([]syncerror.FieldChange, bool) {
	if o.Fields == nil {
		return fix, true
	}
	ctx, cancel := context.WithTimeout(r.Context(), syncerror.MetadataWait)
	tf, err := o.Fields.TargetFields(ctx, c)
	cancel()
	if err != nil || len(tf.Types) == 0 {
		httpapi.Logger(r.Context()).Warn("target metadata unreadable; the fix is written as sent", "id", c.ID, "error", err)
		return fix, true
	}
	typed, p := typeFix(tf, fix)
	if p != nil {
		httpapi.WriteProblem(w, r, p)
		return nil, false
	}
	return typed, true
}

// typeFix checks every path against tf and converts every value to its field's type; the
// problem names the first field that fails.
func typeFix(tf syncerror.TargetFields, fix []syncerror.FieldChange) ([]syncerror.FieldChange, *httpapi.Problem) {
	out := make([]syncerror.FieldChange, len(fix))
	for i, ch := range fix {
		at := "fix[" + strconv.Itoa(i) + "]"
		typ, ok := tf.Types[ch.Path]
		if !ok {
			msg := "is not a field of " + tf.Target
			if near := sameIgnoringCase(tf.Types, ch.Path); near != "" {
				msg += "; did you mean " + strconv.Quote(near) + "?"
			}
			p := httpapi.NewProblem(http.StatusBadRequest, "unknown_field",
				strconv.Quote(ch.Path)+" is not a field of "+tf.Target+"; nothing was written.")
			p.Errors = []httpapi.FieldError{{Field: at + ".path", Message: msg}}
			return nil, p
		}
		v, why := typeValue(typ, ch.After)
		if why != "" {
			p := httpapi.NewProblem(http.StatusBadRequest, "validation_failed",
				strconv.Quote(ch.Path)+" is a "+typ+" field of "+tf.Target+": "+why+"; nothing was written.")
			p.Errors = []httpapi.FieldError{{Field: at + ".after", Message: ch.Path + " " + why}}
			return nil, p
		}
		ch.After = v
		out[i] = ch
	}
	return out, nil
}

func sameIgnoringCase(types map[string]string, path string) string {
	for name := range types {
		if strings.EqualFold(name, path) {
			return name
		}
	}
	return ""
}

// typeValue converts v (as decoded from JSON: numbers as json.Number from an edit, or
// float64 from a proposal) to typ, or says why it cannot. null clears a field of any type.
// A number is carried as json.Number, its digits as sent: a float64 keeps 53 bits, and
// 9007199254740993 would be written 9007199254740992.
func typeValue(typ string, v any) (any, string) {
	if v == nil {
		return nil, ""
	}
	switch typ {
	case syncerror.TypeString:
		switch x := v.(type) {
		case string:
			return x, ""
		case json.Number:
			return x.String(), ""
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), ""
		case bool:
			return strconv.FormatBool(x), ""
		}
		return nil, "must be text"
	case syncerror.TypeInteger:
		n, ok := number(v)
		if !ok {
			return nil, "must be a whole number, not " + shown(v)
		}
		if n, ok = whole(n); !ok {
			return nil, "must be a whole number, not " + shown(v)
		}
		return n, ""
	case syncerror.TypeDecimal:
		n, ok := number(v)
		if !ok {
			return nil, "must be a number, not " + shown(v)
		}
		// Its digits as sent; a number no system stores (1e400) is refused.
		if f, err := n.Float64(); err != nil || math.IsInf(f, 0) {
			return nil, "must be a number, not " + shown(v)
		}
		return n, ""
	case syncerror.TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, ""
		case string:
			if t := strings.TrimSpace(x); t == "true" || t == "false" {
				return t == "true", ""
			}
		}
		return nil, "must be true or false, not " + shown(v)
	case syncerror.TypeDate:
		if s, ok := v.(string); ok && isDate(s) {
			return s, ""
		}
		return nil, "must be a date such as 2026-11-29 or 2026-11-29T09:30:00Z, not " + shown(v)
	case syncerror.TypeReference:
		switch x := v.(type) {
		case string:
			if x != "" {
				return x, ""
			}
		case json.Number:
			return x.String(), ""
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), ""
		case map[string]any:
			return x, ""
		}
		return nil, "must be a record id, not " + shown(v)
	}
	return v, ""
}

// number reads a JSON number, or a string holding one (a number typed into a text box),
// as json.Number with its digits.
func number(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", false
		}
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64)), true
	case string:
		// JSON's number syntax: no hex, no Inf, no thousands separators to misread.
		t := strings.TrimSpace(x)
		n, err := syncerror.DecodeValue([]byte(t))
		if num, ok := n.(json.Number); err == nil && ok {
			return num, true
		}
	}
	return "", false
}

// maxExponent bounds the exponent of a number checked for being whole: a literal such as
// 1e999999999 would otherwise be expanded digit by digit.
const maxExponent = 400

// whole reports whether n is a whole number and gives it as integer digits ("1067.0" and
// "1.067e3" are 1067), exactly, however many digits it has.
func whole(n json.Number) (json.Number, bool) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		return n, true
	}
	if _, exp, ok := strings.Cut(strings.ToLower(s), "e"); ok {
		if e, err := strconv.Atoi(exp); err != nil || e > maxExponent || e < -maxExponent {
			return "", false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return "", false
	}
	return json.Number(r.Num().String()), true
}

func isDate(s string) bool {
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return true
	}
	_, err := httpapi.ParseTime(s)
	return err == nil
}

// shown quotes a refused value for the message, cut short: it is the person's own input.
func shown(v any) string {
	s, ok := v.(string)
	if !ok {
		s = jsonvalue.Canon(v)
	} else {
		s = strconv.Quote(s)
	}
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return s
}
