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

// blocked are the ranges a connector may never reach outside local stages: every block of
// the IANA special-purpose registries that is not globally reachable, the deprecated ones,
// and every form that embeds an IPv4 address (a gateway may turn it into that address).
// Registries: https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/ (RFC 6890 and updates).
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("10.0.0.0/8"),     // private-use
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (carrier-grade NAT, inside some VPCs)
	netip.MustParsePrefix("127.0.0.0/8"),    // loopback
	netip.MustParsePrefix("169.254.0.0/16"), // link-local: the instance metadata address
	netip.MustParsePrefix("172.16.0.0/12"),  // private-use
	// IETF protocol assignments, whole: its few globally reachable entries (PCP and TURN
	// anycast) are never a connector's address.
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast, deprecated (RFC 7526)
	netip.MustParsePrefix("192.168.0.0/16"),  // private-use
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast (its own registry)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255 limited broadcast
	// IPv6. ::/96 holds the unspecified and loopback addresses and the deprecated
	// IPv4-compatible form (::a9fe:a9fe is the metadata address). IPv4-mapped addresses are
	// unmapped before the check; ::ffff:0:0:0/96 is SIIT's IPv4-translated form.
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
	// NAT64 (RFC 6052, RFC 8215): a gateway turns 64:ff9b::a.b.c.d into IPv4 a.b.c.d, so
	// 64:ff9b::a9fe:a9fe is the metadata address and 64:ff9b::7f00:1 loopback.
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("100:0:0:1::/64"), // dummy prefix (RFC 9780)
	// IETF protocol assignments, whole: Teredo (2001::/32, an obfuscated IPv4 inside),
	// benchmarking, ORCHID, and anycast entries that are never a connector's address.
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"), // documentation
	netip.MustParsePrefix("2002::/16"),     // 6to4: a relay turns 2002:a.b.c.d:: into IPv4 a.b.c.d
	netip.MustParsePrefix("3fff::/20"),     // documentation (RFC 9637)
	netip.MustParsePrefix("5f00::/16"),     // segment routing SIDs (RFC 9602)
	netip.MustParsePrefix("fc00::/7"),      // unique-local (fd00:ec2::254 is the EC2 metadata address)
	netip.MustParsePrefix("fe80::/10"),     // link-local
	netip.MustParsePrefix("fec0::/10"),     // site-local, deprecated (RFC 3879)
	netip.MustParsePrefix("ff00::/8"),      // multicast
}

// Blocked reports whether a is in a range the service must not reach. An IPv4 address
// mapped into IPv6 is judged as the IPv4 address it is. A zoned address (fe80::1%eth0) is
// refused whatever it names: netip.Prefix.Contains is false for every zoned address, so a
// range check would let ::1%x through, and no connector is reached by an interface zone.
func Blocked(a netip.Addr) bool {
	if a.Zone() != "" || !a.IsValid() {
		return true
	}
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
	if p.AllowLoopback && a.Zone() == "" && a.Unmap().IsLoopback() {
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
