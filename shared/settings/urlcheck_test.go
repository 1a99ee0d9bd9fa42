package settings

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// dns answers from a table, as a resolver would.
type dns map[string][]string

func (d dns) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range d[host] {
		out = append(out, netip.MustParseAddr(a))
	}
	if out == nil {
		return nil, errors.New("no such host")
	}
	return out, nil
}

func TestCheckBaseURL(t *testing.T) {
	r := dns{
		"acme.my.salesforce.com": {"104.109.10.129"},
		"erp.example.com":        {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
		"rebind.example.com":     {"93.184.216.35", "10.0.0.5"},
		"docs.example.com":       {"93.184.216.36", "2001:db8::7"},
		"metadata.example.com":   {"169.254.169.254"},
		"v6local.example.com":    {"fd00::1"},
		"mapped.example.com":     {"::ffff:127.0.0.1"},
		"cgnat.example.com":      {"100.64.0.1"},
		"nat64.example.com":      {"64:ff9b::a9fe:a9fe"},
		"localhost":              {"127.0.0.1", "::1"},
	}
	cases := []struct {
		url   string
		local bool
		ok    bool
	}{
		{"https://acme.my.salesforce.com", false, true},
		{"https://erp.example.com/services/rest", false, true},
		{"http://acme.my.salesforce.com", false, false},
		{"https://rebind.example.com", false, false},   // one private address is enough
		{"https://metadata.example.com", false, false}, // instance metadata
		{"https://169.254.169.254/latest", false, false},
		{"https://127.0.0.1:8443", false, false},
		{"https://[::1]/", false, false},
		{"https://v6local.example.com", false, false},
		{"https://mapped.example.com", false, false},
		{"https://cgnat.example.com", false, false},
		{"https://192.168.1.10", false, false},
		{"https://nowhere.example.com", false, false},
		{"https://user:pw@erp.example.com", false, false},
		{"https://erp.example.com/?token=x", false, false},
		{"ftp://erp.example.com", false, false},
		{"erp.example.com", false, false},
		{"", false, false},
		{"http://127.0.0.1:3000/fake/crm", true, true}, // the local stack's fakes
		{"ftp://127.0.0.1", true, false},
		{"https://nat64.example.com", false, false}, // the metadata address through NAT64
		{"http://localhost:3000/fake/crm", true, true},
		{"http://[::1]:3000/", true, true},
		// Local stages reach loopback only: not the metadata address, private ranges or NAT64.
		{"http://169.254.169.254/latest/meta-data", true, false},
		{"http://metadata.example.com", true, false},
		{"http://10.0.0.5:8080", true, false},
		{"http://rebind.example.com", true, false},
		{"http://[64:ff9b::7f00:1]/", true, false},
		{"http://[fd00::1]/", true, false},
		// A zoned literal is outside every range (netip.Prefix.Contains), so it is refused
		// outright, loopback included, in every stage.
		{"http://[::1%25x]:3000/", true, false},
		{"https://[::1%25x]/", false, false},
		{"https://[fe80::1%25eth0]/", false, false},
		{"https://[64:ff9b::a9fe:a9fe%25x]/", false, false},
		{"https://[fd00:ec2::254%25x]/", false, false},
		{"https://[2606:4700:4700::1111%25x]/", false, false},
		// The special-purpose ranges the review found accepted.
		{"https://[::a9fe:a9fe]/", false, false},
		{"https://[fec0::1]/", false, false},
		{"https://[2002:a9fe:a9fe::1]/", false, false},
		{"https://[2001::a9fe:a9fe]/", false, false},
		{"https://[::ffff:0:a9fe:a9fe]/", false, false},
		{"https://[100::1]/", false, false},
		{"https://docs.example.com", false, false}, // one documentation address is enough
		{"https://[2606:4700:4700::1111]/", false, true},
	}
	for _, c := range cases {
		err := CheckBaseURL(context.Background(), c.url, c.local, r)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrBaseURL) {
			t.Errorf("CheckBaseURL(%q, local=%v) = %v, want ok %v", c.url, c.local, err, c.ok)
		}
	}
}
