package connector_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// The behaviours one vendor has and the others do not.

func profileOf(sys connector.System) profileCase {
	for _, pc := range profileCases {
		if pc.sys == sys {
			return pc
		}
	}
	panic("no profile case for " + sys)
}

// Business Central: a stale ETag (someone edited between our read and our PATCH) is 409
// Request_EntityChanged; it is read again and written once more, and a second one is the
// caller's conflict.
func TestBusinessCentralStaleETagIsRetriedOnce(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemERP2)
	fake, c, _ := startProfile(t, pc, nil)
	fake.EditAfterNextReads(1)
	res, err := c.Write(context.Background(), pc.write("k-1"))
	if err != nil || res.Replayed || fake.WriteCount() != 1 {
		t.Fatalf("Write = %#v, %v; want applied after one 409", res, err)
	}
	fake.EditAfterNextReads(2)
	req := pc.write("k-2")
	req.Fields = map[string]any{"displayName": "Coho Winery II"}
	_, err = c.Write(context.Background(), req)
	if ce := asError(t, err, connector.ErrConflict); ce.Status != http.StatusConflict || ce.Code != "Request_EntityChanged" {
		t.Fatalf("error = %#v, want 409 Request_EntityChanged", ce)
	}
	if fake.WriteCount() != 1 {
		t.Fatal("a write with a stale ETag was applied")
	}
}

func TestBusinessCentralBaseURLNamesTheCompany(t *testing.T) {
	t.Parallel()
	_, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemERP2, BaseURL: "https://api.businesscentral.dynamics.com/v2.0/t/production"})
	if !errors.Is(err, connector.ErrInvalidConfig) {
		t.Fatalf("New without a company: %v, want ErrInvalidConfig", err)
	}
}

// Salesforce: the org's daily API limit is a 403 REQUEST_LIMIT_EXCEEDED, rate limited, not
// retried within the call, and handed back with a wait for the caller to defer the write.
func TestSalesforceRequestLimitExceeded(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	fake, c, _ := startProfile(t, pc, nil)
	fake.FailNextWithCode(1, http.StatusForbidden, "REQUEST_LIMIT_EXCEEDED")
	_, err := c.Get(context.Background(), pc.entity, pc.id)
	if ce := asError(t, err, connector.ErrRateLimited); ce.Attempts != 1 || ce.Code != "REQUEST_LIMIT_EXCEEDED" ||
		ce.RetryAfter != connector.SalesforceLimitWait || !ce.Retryable {
		t.Fatalf("error = %#v", ce)
	}
}

// Salesforce: upsert by external id creates (201) and then updates (204) the same record.
func TestSalesforceUpsertByExternalID(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	fake, c, _ := startProfile(t, pc, nil)
	req := connector.WriteRequest{Entity: "Account", RecordID: "C-2001", UpsertKey: "ERP_Id__c",
		Fields: map[string]any{"Name": "Nordwind"}, IdempotencyKey: "k-1", Origin: "syncassist"}
	res, err := c.Write(context.Background(), req)
	if err != nil || res.Record.Fields["ERP_Id__c"] != "C-2001" || res.Record.Fields["Name"] != "Nordwind" {
		t.Fatalf("upsert (create) = %#v, %v", res, err)
	}
	req.Fields = map[string]any{"Name": "Nordwind Handel"}
	if res, err = c.Write(context.Background(), req); err != nil || res.Record.Fields["Name"] != "Nordwind Handel" {
		t.Fatalf("upsert (update) = %#v, %v", res, err)
	}
	if res, err = c.Write(context.Background(), req); err != nil || !res.Replayed || fake.WriteCount() != 2 {
		t.Fatalf("repeated upsert = %#v, %v; writes %d", res, err, fake.WriteCount())
	}
}

// Mailchimp: PUT is an upsert; a new member is created pending (double opt-in).
func TestMailchimpUpsertCreatesAMember(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemMarketing)
	fake, c, _ := startProfile(t, pc, nil)
	res, err := c.Write(context.Background(), connector.WriteRequest{Entity: pc.entity, RecordID: "New.Person@example.com",
		Fields: map[string]any{"merge_fields": map[string]any{"FNAME": "New"}}, IdempotencyKey: "k-1", Origin: "syncassist"})
	if err != nil || res.Record.Fields["status"] != "pending" || res.Record.Fields["email_address"] != "New.Person@example.com" {
		t.Fatalf("upsert = %#v, %v", res, err)
	}
	if _, ok := fake.Get(pc.entity, connector.SubscriberHash("new.person@example.com")); !ok {
		t.Fatal("the member is not stored under the lower-cased address's hash")
	}
}

// ShipStation: X-Rate-Limit-* on every answer; over the window's limit the wait until the
// reset goes back to the caller when it is longer than the client may block.
func TestShipStationRateLimitWindow(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemShipping)
	fake, c, _ := startProfile(t, pc, nil)
	fake.RateLimit(2, time.Minute)
	for range 2 {
		if _, err := c.Get(context.Background(), pc.entity, pc.id); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Get(context.Background(), pc.entity, pc.id)
	if ce := asError(t, err, connector.ErrRateLimited); ce.RetryAfter < 50*time.Second || ce.Attempts != 1 {
		t.Fatalf("error = %#v, want the window's reset as RetryAfter", ce)
	}
}

// Business Central and Salesforce: OAuth 2.0 client credentials, the token cached and
// fetched again once when the system refuses it. Salesforce's token answer has no
// expires_in (the fake's follows its help page): the token is kept until a 401. NetSuite's
// M2M login signs a client assertion instead (netsuite_m2m_test.go).
func TestClientCredentials(t *testing.T) {
	t.Parallel()
	for sys, at := range map[connector.System]struct{ path, scope string }{
		connector.SystemERP2: {fakesystem.TokenPath, "https://api.businesscentral.dynamics.com/.default"},
		connector.SystemCRM:  {fakesystem.SalesforceTokenPath, ""},
	} {
		t.Run(string(sys), func(t *testing.T) {
			t.Parallel()
			pc := profileOf(sys)
			fake, _, root := startProfile(t, pc, nil)
			url := root + fakesystem.BasePath(sys)
			fake.IssueTokens("client-1", "s3cret", time.Hour)
			c, err := connector.New(connector.Config{AllowLoopback: true, System: sys, BaseURL: url, Token: "client-1:s3cret",
				TokenURL: root + at.path, Scope: at.scope})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := c.Get(context.Background(), pc.entity, pc.id); err != nil {
					t.Fatalf("Get: %v", err)
				}
			}
			if fake.TokensIssued() != 1 {
				t.Fatalf("tokens issued = %d, want 1 (cached)", fake.TokensIssued())
			}
			fake.RevokeTokens()
			if _, err := c.Write(context.Background(), pc.write("k-1")); err != nil || fake.TokensIssued() != 2 {
				t.Fatalf("Write after revocation: %v, tokens issued %d", err, fake.TokensIssued())
			}
			bad, _ := connector.New(connector.Config{AllowLoopback: true, System: sys, BaseURL: url, Token: "client-1:wrong", TokenURL: root + at.path})
			_, err = bad.Get(context.Background(), pc.entity, pc.id)
			asError(t, err, connector.ErrUnauthorized)
		})
	}
}
