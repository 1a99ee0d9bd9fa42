// Package netguard keeps the service's outbound requests to tenant-configured systems off
// its own network: loopback, private, link-local (the instance metadata address
// 169.254.169.254 among them), NAT64 and other reserved ranges; local stages may reach
// loopback (their fakes) and nothing else (Policy). A connector's base URL is checked
// when it is saved (Blocked, on every address the name resolves to), and again on every
// connection (Control, on the address actually dialled), because a name can resolve
// elsewhere later: DNS rebinding.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ErrBlocked is wrapped by every refusal of an address.
var ErrBlocked = errors.New("a loopback, link-local, private or reserved address")

// blocked are the ranges a connector may never reach outside local stages.
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
	// NAT64 (RFC 6052, RFC 8215): a gateway turns 64:ff9b::a.b.c.d into IPv4 a.b.c.d, so
	// 64:ff9b::a9fe:a9fe is the metadata address and 64:ff9b::7f00:1 loopback.
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("ff00::/8"),
}

// Blocked reports whether a is in a range the service must not reach. An IPv4 address
// mapped into IPv6 is judged as the IPv4 address it is.
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range blocked {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Policy is what a stage may reach. The zero Policy is the production one: nothing
// Blocked. Local stages set AllowLoopback, for the fakes on 127.0.0.1, and nothing more:
// the metadata address, private ranges and NAT64 stay blocked there too.
type Policy struct {
	AllowLoopback bool
}

// Local is the policy of local stages (CONNECTORS_ALLOW_LOCAL=true).
var Local = Policy{AllowLoopback: true}

// Blocked reports whether the policy refuses a.
func (p Policy) Blocked(a netip.Addr) bool {
	if p.AllowLoopback && a.Unmap().IsLoopback() {
		return false
	}
	return Blocked(a)
}

// Control is a net.Dialer Control function that refuses to connect to an address the
// policy blocks: it sees the address after resolution, just before the connection is made.
func (p Policy) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: %s is not an address and port: %w", address, ErrBlocked)
	}
	if p.Blocked(ap.Addr()) {
		return fmt.Errorf("netguard: %s is %w", ap.Addr(), ErrBlocked)
	}
	return nil
}

// Dialer is a dialer with http.DefaultTransport's timeouts that refuses the addresses the
// policy blocks.
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.Control}
}

// Control is the production policy's Control.
func Control(network, address string, c syscall.RawConn) error {
	return Policy{}.Control(network, address, c)
}

// Dialer is the production policy's Dialer.
func Dialer() *net.Dialer { return Policy{}.Dialer() }
