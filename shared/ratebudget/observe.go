package ratebudget

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// signal is what one answer said about the account's allowance.
type signal struct {
	// until, when after the answer, is when the vendor said its allowance returns: nothing
	// is sent before.
	until time.Time
	// remaining is the vendor's count of what is left in its window, -1 when not said.
	remaining int
}

func (s signal) none() bool { return s.until.IsZero() && s.remaining < 0 }

// salesforceHold is how long an org whose daily API requests are spent is left alone
// before a write tries again: the connector's own wait for REQUEST_LIMIT_EXCEEDED.
const salesforceHold = connector.SalesforceLimitWait

// readSignal reads the vendors' rate headers:
//   - ShipStation: X-Rate-Limit-Remaining and X-Rate-Limit-Reset (seconds until the window
//     resets) on every answer (https://www.shipstation.com/docs/api/requirements/#api-rate-limits);
//     none remaining, or a 429, drains the budget until the reset.
//   - Salesforce: Sforce-Limit-Info: api-usage=used/limit
//     (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm);
//     used up drains it for salesforceHold.
//   - Retry-After on a 429 or 503, in seconds or as an HTTP date (RFC 9110 §10.2.3):
//     Business Central's throttling (https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/api-reference/v2.0/dynamics-rate-limits).
func readSignal(system connector.System, status int, h http.Header, now time.Time) signal {
	sig := signal{remaining: -1}
	limited := status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
	if limited {
		if d := retryAfter(h.Get("Retry-After"), now); d > 0 {
			sig.until = now.Add(d)
		}
	}
	if rem, err := strconv.Atoi(strings.TrimSpace(h.Get("X-Rate-Limit-Remaining"))); err == nil && rem >= 0 {
		sig.remaining = rem
		if reset, err := strconv.Atoi(strings.TrimSpace(h.Get("X-Rate-Limit-Reset"))); err == nil && reset > 0 &&
			(rem == 0 || status == http.StatusTooManyRequests) {
			sig.until = laterOf(sig.until, now.Add(time.Duration(min(reset, 3600))*time.Second))
		}
	}
	if system == connector.SystemCRM {
		if used, limit, ok := apiUsage(h.Get("Sforce-Limit-Info")); ok && used >= limit {
			sig.until = laterOf(sig.until, now.Add(salesforceHold))
		}
	}
	if sig.until.After(now.Add(holdMax)) {
		sig.until = now.Add(holdMax)
	}
	return sig
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// apiUsage reads "api-usage=18/5000" out of Sforce-Limit-Info, which may carry other
// entries ("; per-app-api-usage=17/250(appName=…)").
func apiUsage(v string) (used, limit int, ok bool) {
	for part := range strings.SplitSeq(v, ";") {
		name, val, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found || name != "api-usage" {
			continue
		}
		u, l, found := strings.Cut(val, "/")
		used, err1 := strconv.Atoi(strings.TrimSpace(u))
		limit, err2 := strconv.Atoi(strings.TrimSpace(l))
		return used, limit, found && err1 == nil && err2 == nil && limit > 0
	}
	return 0, 0, false
}

// retryAfter reads delta-seconds or an HTTP date; 0 means absent or unusable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
