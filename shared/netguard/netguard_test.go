package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/syncassist/syncassist/shared/netguard"
)

func TestBlockedRanges(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.20.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.64.0.1": true, "0.0.0.0": true, "::1": true, "fd00::1": true, "fe80::1": true, "::ffff:127.0.0.1": true,
		"64:ff9b::a9fe:a9fe": true, "64:ff9b::7f00:1": true, "64:ff9b::808:808": true, "64:ff9b:1::a00:1": true,
		"93.184.216.34": false, "8.8.8.8": false, "2606:4700:4700::1111": false, "172.32.0.1": false,
	} {
		if got := netguard.Blocked(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Blocked(%s) = %v, want %v", addr, got, want)
		}
	}
}

// A dial that resolves to a loopback address is refused at connect time, whatever the
// name said when it was checked.
func TestDialerRefusesABlockedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: netguard.Dialer().DialContext}}
	_, err := client.Get(srv.URL)
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("GET %s through the guarded dialer: %v, want ErrBlocked", srv.URL, err)
	}
	// The same server is reachable without the guard: the refusal is the guard's.
	if resp, err := http.Get(srv.URL); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if _, err := netguard.Dialer().DialContext(context.Background(), "tcp", net.JoinHostPort("localhost", "1")); !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("dial localhost: %v, want ErrBlocked (the name resolves to loopback)", err)
	}
}

// The local stages' policy reaches loopback (the fakes) and nothing else the production
// policy refuses.
func TestLocalPolicyAllowsLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": false, "127.3.4.5": false, "::1": false, "::ffff:127.0.0.1": false,
		"169.254.169.254": true, "10.1.2.3": true, "192.168.1.1": true, "172.20.0.1": true, "fd00::1": true,
		"fe80::1": true, "0.0.0.0": true, "64:ff9b::7f00:1": true, "64:ff9b::a9fe:a9fe": true,
		"8.8.8.8": false,
	} {
		if got := netguard.Local.Blocked(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Local.Blocked(%s) = %v, want %v", addr, got, want)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: netguard.Local.Dialer().DialContext}}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET %s under the local policy: %v", srv.URL, err)
	}
	resp.Body.Close()
	if _, err := netguard.Local.Dialer().DialContext(context.Background(), "tcp", "169.254.169.254:80"); !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("dial the metadata address under the local policy: %v, want ErrBlocked", err)
	}
}
