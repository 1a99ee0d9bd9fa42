package connector_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// Mailchimp against shared/connector/vendors/mailchimp.

func TestMailchimpReadsEveryDocumentedError(t *testing.T) {
	t.Parallel()
	checkErrorReadings(t, profileOf(connector.SystemMarketing), loadFixtures(t, "mailchimp"))
}

func TestMailchimpRequestsAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemMarketing)
	_, c, rc := startRecorded(t, pc)
	ctx := context.Background()
	if _, err := c.Write(ctx, pc.write("k-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, connector.WriteRequest{Entity: pc.entity, RecordID: "New.Person@example.com",
		Fields: map[string]any{"merge_fields": map[string]any{"FNAME": "New"}}, IdempotencyKey: "k-2", Origin: "syncassist"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, connector.WriteRequest{Entity: pc.entity, Create: true,
		Fields: map[string]any{"email_address": "neu@example.com", "status": "pending"}, IdempotencyKey: "k-3", Origin: "syncassist"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Changes(ctx, pc.entity, time.Unix(0, 0), "", 10); err != nil {
		t.Fatal(err)
	}
	checkRequests(t, rc.requests(), loadFixtures(t, "mailchimp"))
}

func TestMailchimpFakeAnswersInTheDocumentedShapes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemMarketing)
	all := loadFixtures(t, "mailchimp")
	member := "/3.0/lists/" + pc.entity + "/members/" + connector.SubscriberHash(pc.id)
	for name, provoke := range map[string]struct {
		method, path string
		prepare      func(*fakesystem.Server)
	}{
		"success-get-member":            {method: "GET", path: member},
		"error-404-resourcenotfound":    {method: "GET", path: "/3.0/lists/" + pc.entity + "/members/" + connector.SubscriberHash("nobody@example.com")},
		"error-401-apikeyinvalid":       {method: "GET", path: member, prepare: func(s *fakesystem.Server) { s.RequireToken("mc-key-us6") }},
		"error-405-methodnotallowed":    {method: "DELETE", path: member},
		"error-429-toomanyrequests":     {method: "GET", path: member, prepare: func(s *fakesystem.Server) { s.FailNext(1, http.StatusTooManyRequests) }},
		"error-500-internalservererror": {method: "GET", path: member, prepare: func(s *fakesystem.Server) { s.FailNext(1, http.StatusInternalServerError) }},
	} {
		t.Run(name, func(t *testing.T) {
			f, ok := all[name]
			if !ok {
				t.Fatalf("no fixture %s", name)
			}
			checkAnswerShape(t, f, fakeRaw(t, pc, provoke.prepare, provoke.method, provoke.path, nil, ""))
		})
	}
}
