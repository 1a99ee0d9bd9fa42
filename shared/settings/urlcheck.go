package settings

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Resolver looks up a host's addresses; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrBaseURL is wrapped by every refusal of a connector base URL.
var ErrBaseURL = errors.New("connector base URL refused")

// blocked are the ranges a connector may never reach outside local stages: a base URL is
// a request the service makes on the tenant's behalf, and these would point it at itself,
// its network or the instance metadata service (169.254.169.254).
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT, used inside some VPCs
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("ff00::/8"),
}

// CheckBaseURL refuses a connector base URL that is not https, carries credentials,
// or names a host that resolves to any address in a blocked range. local (local stages
// only) allows http and any address, for the fakes. Every address is checked, not the
// first: a name with one public and one private address is refused.
func CheckBaseURL(ctx context.Context, raw string, local bool, r Resolver) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%w: want https://host[/path]", ErrBaseURL)
	case u.User != nil:
		return fmt.Errorf("%w: credentials belong in the connector's token, not its URL", ErrBaseURL)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%w: no query or fragment", ErrBaseURL)
	case local && (u.Scheme == "http" || u.Scheme == "https"):
		return nil
	case u.Scheme != "https":
		return fmt.Errorf("%w: https only", ErrBaseURL)
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	addrs, err := lookup(ctx, r, host)
	if err != nil {
		return fmt.Errorf("%w: %s does not resolve", ErrBaseURL, host)
	}
	for _, a := range addrs {
		a = a.Unmap()
		for _, p := range blocked {
			if p.Contains(a) {
				return fmt.Errorf("%w: %s resolves to %s, a loopback, link-local, private or reserved address", ErrBaseURL, host, a)
			}
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
