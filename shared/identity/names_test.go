package identity_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/identity"
)

// The names a host ERP may have recorded for the person behind a token: the subject, the
// e-mail and the preferred username, each case-insensitively (four eyes relies on this).
func TestVerifiedIdentityKnowsItsOtherNames(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, rsaKey, ecKey)
	v := newVerifier(srv.URL, clock)
	c := baseClaims(clock.Now())
	c["email"] = "Alice.Smith@Example.com"
	c["preferred_username"] = "asmith"
	p, err := v.Verify(context.Background(), sign(t, rsaKey, c))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := identity.Derive(&p, nil)
	for _, name := range []string{"subject-marker-7f3a", "SUBJECT-MARKER-7F3A", "alice.smith@example.com", " ASmith "} {
		if !id.Is(name) {
			t.Errorf("Is(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"", "  ", "bob@example.com", "asmith2", "alice.smith"} {
		if id.Is(name) {
			t.Errorf("Is(%q) = true, want false", name)
		}
	}
	// The aliases are personal data: they never reach a serialised identity (audit records).
	b, _ := json.Marshal(id)
	if strings.Contains(strings.ToLower(string(b)), "alice") || strings.Contains(string(b), "asmith") {
		t.Errorf("serialised identity carries an alias: %s", b)
	}
}

// Cognito's access tokens name the user "username", not "preferred_username".
func TestCognitoUsernameIsAnAlias(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, rsaKey, ecKey)
	v := newVerifier(srv.URL, clock)
	c := baseClaims(clock.Now())
	c["username"] = "Carol"
	c["token_use"] = "access"
	p, err := v.Verify(context.Background(), signTyped(t, rsaKey, jwt.MapClaims(c), ""))
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := identity.Derive(&p, nil); !id.Is("carol") {
		t.Errorf("username claim not an alias: %+v", p)
	}
}

// The same person in the console (login id, e-mail alias) and in the embedded surface
// (the host's user id, which is that e-mail) is one person to a record that kept the
// console identity's NameKeys, whichever channel came first; another person is not.
func TestIsOneOfFindsThePersonAcrossChannels(t *testing.T) {
	console := identity.Identity{TenantID: "t1", Actor: "u-7f3a", Aliases: []string{"Alice@Acme.example"}}
	embedded := identity.Identity{TenantID: "t1", Actor: " alice@acme.example"}
	other := identity.Identity{TenantID: "t1", Actor: "bob@acme.example", Aliases: []string{"u-9"}}
	for _, tc := range []struct {
		name          string
		caller, asker identity.Identity
		want          bool
	}{
		{"embedded after console", embedded, console, true},
		{"console after embedded", console, embedded, true},
		{"another person", other, console, false},
		{"another person, embedded asker", other, embedded, false},
	} {
		if got := tc.caller.IsOneOf(tc.asker.Actor, tc.asker.NameKeys()); got != tc.want {
			t.Errorf("%s: IsOneOf = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A record from before keys were: its actor name alone.
	if !console.IsOneOf("ALICE@acme.example", nil) || embedded.IsOneOf("u-7f3a", nil) {
		t.Error("IsOneOf without keys must compare the name as Is does")
	}
	if k := identity.NameKey("  "); k != "" {
		t.Errorf("NameKey of a blank name = %q, want empty", k)
	}
}
