package settings

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/netguard"
)

// Settings validation of a connector base URL (the SSRF gate): whatever the text, an
// accepted URL is https (or, locally, http), carries no credentials, query or fragment,
// and its host resolves only to addresses the stage's policy allows.
func FuzzCheckBaseURL(f *testing.F) {
	for _, s := range []string{"https://acme.my.salesforce.com", "https://169.254.169.254/", "https://[::ffff:127.0.0.1]/",
		"https://[64:ff9b::a9fe:a9fe]/", "http://127.0.0.1:3000/fake", "https://user@erp.example.com", "https://erp.example.com/?a",
		"https://0x7f.1/", "https://2130706433/", "https://erp.example.com.", "https:erp.example.com", "//erp.example.com",
		"http://[::1%25x]:3000/", "https://[fe80::1%25eth0]/", "https://[::a9fe:a9fe]/", "https://[2002:a9fe:a9fe::1]/"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	r := dns{"acme.my.salesforce.com": {"104.109.10.129"}, "erp.example.com": {"93.184.216.34"}, "localhost": {"127.0.0.1"}}
	f.Fuzz(func(t *testing.T, raw string, local bool) {
		if CheckBaseURL(context.Background(), raw, local, r) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			t.Fatalf("accepted %q", raw)
		}
		if u.Scheme != "https" && !(local && u.Scheme == "http") {
			t.Fatalf("accepted %q with scheme %q", raw, u.Scheme)
		}
		host := strings.TrimSuffix(u.Hostname(), ".")
		addrs := r[host]
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []string{a.String()}
		}
		if len(addrs) == 0 {
			t.Fatalf("accepted %q whose host %q does not resolve", raw, host)
		}
		for _, a := range addrs {
			if (netguard.Policy{AllowLoopback: local}).Blocked(netip.MustParseAddr(a)) {
				t.Fatalf("accepted %q, which reaches %s", raw, a)
			}
		}
	})
}
