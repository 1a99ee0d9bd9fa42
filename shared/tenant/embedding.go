package tenant

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// KeyEmbeddedAllowedOrigins lists, space- or comma-separated, the exact origins of the host
// ERP pages allowed to frame the console for this tenant (its Content-Security-Policy
// frame-ancestors, and the parents the console accepts an embedded session from). Absent
// or empty allows none: the console then refuses to be framed for the tenant.
const KeyEmbeddedAllowedOrigins = "embedded.allowed_origins"

// KeyFinanceConfirmAbove is the amount above which approving a finance approval must be
// confirmed (the console asks with amount and currency; the API wants {"confirm": true}).
// One plain decimal compared with the approval's amount in its own currency.
const KeyFinanceConfirmAbove = "finance_ops.confirm_above"

// DefaultFinanceConfirmAbove applies when the tenant has not set KeyFinanceConfirmAbove.
const DefaultFinanceConfirmAbove = "10000"

// ParseFrameOrigins reads an origins setting: exact https origins (scheme and host, an
// optional port, nothing else). loopbackHTTP also accepts http on localhost or a
// loopback address, which the local stack and its browser tests frame from.
func ParseFrameOrigins(list string, loopbackHTTP bool) ([]string, error) {
	var out []string
	for _, o := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		u, err := url.Parse(o)
		ok := err == nil && u.Host != "" && u.User == nil && u.Opaque == "" && (u.Path == "" || u.Path == "/") &&
			u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" && !strings.ContainsAny(o, "*;'\"")
		if ok && u.Scheme != "https" {
			ok = loopbackHTTP && u.Scheme == "http" && loopback(u.Hostname())
		}
		if !ok {
			return nil, fmt.Errorf("%q is not an exact https origin such as https://1234567.app.erp.example.com", o)
		}
		// As a browser serialises an origin: no default port, and no empty one, so that the
		// console's own check of its parent (embedOrigins) matches what the CSP admits.
		host := strings.TrimSuffix(strings.ToLower(u.Host), ":")
		host = strings.TrimSuffix(host, map[string]string{"https": ":443", "http": ":80"}[u.Scheme])
		out = append(out, u.Scheme+"://"+host)
	}
	return out, nil
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}

// EmbeddedOrigins are the origins allowed to frame the console for the tenant. A value
// that does not parse (validation refuses one when it is saved) allows none. The http
// loopback origins a value may hold (the operator's tenantctl accepts them, since it also
// sets up local stacks) count only where loopbackHTTP, on a local stage: anywhere else
// they are dropped, so that no page served over plain http on a user's own machine can
// frame a deployed console.
func (c Config) EmbeddedOrigins(loopbackHTTP bool) []string {
	all, err := ParseFrameOrigins(c.Settings[KeyEmbeddedAllowedOrigins], true)
	if err != nil {
		return nil
	}
	var out []string
	for _, o := range all {
		if loopbackHTTP || strings.HasPrefix(o, "https://") {
			out = append(out, o)
		}
	}
	return out
}

// FrameOriginsReader answers each tenant's embedded.allowed_origins from its settings: the
// console's frame origins. An id that is not a tenant id, or no such tenant, allows none.
// LoopbackHTTP is the local stage's allowance for http loopback origins (EmbeddedOrigins);
// a deployed stage leaves it false.
type FrameOriginsReader struct {
	Tenants      Reader
	LoopbackHTTP bool
}

// FrameOrigins are the origins allowed to frame the console for tenantID.
func (o FrameOriginsReader) FrameOrigins(ctx context.Context, tenantID string) ([]string, error) {
	if !ValidID(tenantID) {
		return nil, nil
	}
	c, err := o.Tenants.Get(ctx, tenantID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c.EmbeddedOrigins(o.LoopbackHTTP), nil
}

// amountPattern is a plain decimal: the finance approvals' amounts have this shape.
var amountPattern = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,4})?$`)

// ParseAmount reads a plain decimal amount ("27500", "12480.00"): at most 15 integer and
// 4 fraction digits, no exponent, no sign but "-".
func ParseAmount(s string) (*big.Rat, bool) {
	if !amountPattern.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// FinanceConfirmAbove is the amount above which an approve must be confirmed.
func (c Config) FinanceConfirmAbove() *big.Rat {
	if r, ok := ParseAmount(c.Settings[KeyFinanceConfirmAbove]); ok && r.Sign() >= 0 {
		return r
	}
	r, _ := ParseAmount(DefaultFinanceConfirmAbove)
	return r
}

// CheckSetting validates the value of a setting with rules of its own (nil for the
// others). loopbackHTTP is the local stage's allowance for origins (ParseFrameOrigins).
func CheckSetting(key, value string, loopbackHTTP bool) error {
	switch key {
	case KeyEmbeddedAllowedOrigins:
		_, err := ParseFrameOrigins(value, loopbackHTTP)
		return err
	case KeyModelBelow:
		if v, err := strconv.ParseFloat(value, 64); value != "" && (err != nil || v < 0 || v > 1) {
			return fmt.Errorf("must be a number from 0 to 1, such as 0.9 (empty for the default)")
		}
	case KeyFinanceConfirmAbove:
		if r, ok := ParseAmount(value); value != "" && (!ok || r.Sign() < 0) {
			return fmt.Errorf("must be an amount of 0 or more, such as %s (empty for the default)", DefaultFinanceConfirmAbove)
		}
	}
	return nil
}
