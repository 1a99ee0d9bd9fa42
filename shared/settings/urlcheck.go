package settings

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/syncassist/syncassist/shared/netguard"
)

// Resolver looks up a host's addresses; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrBaseURL is wrapped by every refusal of a connector base URL.
var ErrBaseURL = errors.New("connector base URL refused")

// CheckBaseURL refuses a connector base URL that is not https, carries credentials,
// or names a host that resolves to any address in a blocked range. local (local stages
// only) allows http and loopback addresses, for the fakes, and nothing else the
// production policy blocks. Every address is checked, not the first: a name with one
// public and one private address is refused.
func CheckBaseURL(ctx context.Context, raw string, local bool, r Resolver) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%w: want https://host[/path]", ErrBaseURL)
	case u.User != nil:
		return fmt.Errorf("%w: credentials belong in the connector's token, not its URL", ErrBaseURL)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%w: no query or fragment", ErrBaseURL)
	case local && u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w: http or https only", ErrBaseURL)
	case !local && u.Scheme != "https":
		return fmt.Errorf("%w: https only", ErrBaseURL)
	}
	policy := netguard.Policy{AllowLoopback: local}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if strings.Contains(host, "%") {
		// [fe80::1%25eth0]: a zone names an interface of this host, never a connector, and a
		// zoned address escapes every range check (netguard.Blocked refuses it too).
		return fmt.Errorf("%w: an IPv6 zone (%%) names an interface of this host, not a connector", ErrBaseURL)
	}
	addrs, err := lookup(ctx, r, host)
	if err != nil {
		return fmt.Errorf("%w: %s does not resolve", ErrBaseURL, host)
	}
	for _, a := range addrs {
		if policy.Blocked(a) {
			return fmt.Errorf("%w: %s resolves to %s, a loopback, link-local, private or reserved address", ErrBaseURL, host, a.Unmap())
		}
	}
	return nil
}

func lookup(ctx context.Context, r Resolver, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no addresses")
	}
	return addrs, err
}
