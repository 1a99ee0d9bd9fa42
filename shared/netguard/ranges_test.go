package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"

	"github.com/syncassist/syncassist/shared/netguard"
)

// One address in every range of the IANA special-purpose registries that is not globally
// reachable (https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/), the deprecated ones, and
// the forms that embed an IPv4 address. Each must be refused, by both policies.
var specialPurpose = []struct{ addr, name string }{
	{"0.1.2.3", "0.0.0.0/8 this network"},
	{"10.20.30.40", "10.0.0.0/8 private-use"},
	{"100.100.1.1", "100.64.0.0/10 shared address space"},
	{"127.0.0.2", "127.0.0.0/8 loopback"},
	{"169.254.169.254", "169.254.0.0/16 link-local (instance metadata)"},
	{"172.31.255.1", "172.16.0.0/12 private-use"},
	{"192.0.0.8", "192.0.0.0/24 IETF protocol assignments"},
	{"192.0.2.10", "192.0.2.0/24 TEST-NET-1"},
	{"192.88.99.1", "192.88.99.0/24 deprecated 6to4 relay anycast"},
	{"192.168.0.1", "192.168.0.0/16 private-use"},
	{"198.19.0.1", "198.18.0.0/15 benchmarking"},
	{"198.51.100.7", "198.51.100.0/24 TEST-NET-2"},
	{"203.0.113.7", "203.0.113.0/24 TEST-NET-3"},
	{"224.0.0.251", "224.0.0.0/4 multicast"},
	{"240.0.0.1", "240.0.0.0/4 reserved"},
	{"255.255.255.255", "255.255.255.255/32 limited broadcast"},
	{"::", "::/128 unspecified"},
	{"::1", "::1/128 loopback"},
	{"::a9fe:a9fe", "::/96 IPv4-compatible (deprecated): the metadata address"},
	{"::ffff:169.254.169.254", "::ffff:0:0/96 IPv4-mapped"},
	{"::ffff:0:a9fe:a9fe", "::ffff:0:0:0/96 IPv4-translated"},
	{"64:ff9b::a9fe:a9fe", "64:ff9b::/96 NAT64 of the metadata address"},
	{"64:ff9b::808:808", "64:ff9b::/96 NAT64 of any address"},
	{"64:ff9b:1::a00:1", "64:ff9b:1::/48 local-use translation"},
	{"100::1", "100::/64 discard-only"},
	{"100:0:0:1::1", "100:0:0:1::/64 dummy prefix"},
	{"2001::a9fe:a9fe", "2001::/32 Teredo"},
	{"2001:2::1", "2001:2::/48 benchmarking"},
	{"2001:10::1", "2001:10::/28 ORCHID (deprecated)"},
	{"2001:1ff::1", "2001::/23 IETF protocol assignments"},
	{"2001:db8::7", "2001:db8::/32 documentation"},
	{"2002:a9fe:a9fe::1", "2002::/16 6to4 (embeds 169.254.169.254)"},
	{"3fff::1", "3fff::/20 documentation"},
	{"5f00::1", "5f00::/16 segment routing SIDs"},
	{"fd00:ec2::254", "fc00::/7 unique-local (the EC2 IPv6 metadata address)"},
	{"fe80::1", "fe80::/10 link-local"},
	{"fec0::1", "fec0::/10 site-local (deprecated)"},
	{"ff02::1", "ff00::/8 multicast"},
}

func TestSpecialPurposeRangesAreBlocked(t *testing.T) {
	for _, c := range specialPurpose {
		a := netip.MustParseAddr(c.addr)
		if !netguard.Blocked(a) {
			t.Errorf("Blocked(%s) = false: %s", c.addr, c.name)
		}
		if a.Unmap().IsLoopback() {
			continue // the local policy reaches loopback, for the fakes
		}
		if !netguard.Local.Blocked(a) {
			t.Errorf("Local.Blocked(%s) = false: %s", c.addr, c.name)
		}
	}
	// Globally reachable addresses, including ones next to a blocked range, pass.
	for _, s := range []string{"8.8.8.8", "93.184.216.34", "192.0.3.1", "192.88.98.1", "198.20.0.1", "223.255.255.254",
		"2606:4700:4700::1111", "2001:200::1", "2003::1", "2600::1", "64:ff9b:2::1"} {
		if netguard.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("Blocked(%s) = true, want a public address to pass", s)
		}
	}
}

// A zoned address is outside every netip.Prefix (Contains is false), so it would pass
// any range check: it is refused outright, by both policies, whatever it names.
func TestZonedAddressesAreRefused(t *testing.T) {
	for _, s := range []string{"::1%x", "fe80::1%eth0", "64:ff9b::a9fe:a9fe%x", "fd00:ec2::254%x", "2606:4700:4700::1111%x"} {
		a := netip.MustParseAddr(s)
		if !netguard.Blocked(a) || !netguard.Local.Blocked(a) {
			t.Errorf("%s passes the guard", s)
		}
	}
	// At dial time too: the dialer hands Control the zoned address it connects to.
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback here:", err)
	}
	defer ln.Close()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, p := range []netguard.Policy{{}, netguard.Local} {
		_, err := p.Dialer().DialContext(context.Background(), "tcp", net.JoinHostPort("::1%lo", strconv.Itoa(port)))
		if !errors.Is(err, netguard.ErrBlocked) {
			t.Errorf("policy %+v dialled [::1%%lo]:%d: %v, want ErrBlocked", p, port, err)
		}
	}
}
