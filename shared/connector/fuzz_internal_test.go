package connector

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The query builders: no entity Changes accepts and no record id escapes its quoting.
// SuiteQL and SOQL take the entity as an identifier (only what entityPattern admits, so
// the query has exactly the quotes of its template); Business Central takes an id as an
// OData string literal, which must decode back to the id and end where the key ends.
func FuzzQueryBuilders(f *testing.F) {
	for _, s := range []string{"customer", "salesOrder", "Account", "x' OR '1'='1", "a)", "it''s", "a/b", "%27", "\x00", "ü"} {
		f.Add(s, int64(1764150000))
	}
	tmplQuotes := strings.Count(NetSuiteChangesQuery, "'")
	f.Fuzz(func(t *testing.T, in string, sinceUnix int64) {
		since := time.Unix(sinceUnix%(1<<34), 0).UTC()
		if entityPattern.MatchString(in) {
			q := NetSuiteChangesSQL(in, since)
			want := tmplQuotes
			if _, ok := NetSuiteTransactionTypes[in]; ok {
				want += 2
			}
			if n := strings.Count(q, "'"); n != want {
				t.Fatalf("SuiteQL for %q has %d quotes (want %d): %s", in, n, want, q)
			}
			soql := strings.Fields(fmt.Sprintf(SalesforceChangesQuery, in, since.Format(time.RFC3339), 1, 0))
			if soql[3] != in || soql[4] != "WHERE" {
				t.Fatalf("SOQL for %q: FROM is not exactly the entity: %v", in, soql)
			}
		}
		c := &Client{base: "https://bc.example.com/api/v2.0/companies(1)"}
		u := businessCentral{}.entityURL(c, "salesOrders", in)
		rest := strings.TrimPrefix(u, c.base+"/salesOrders(")
		if rest == u || !strings.HasSuffix(rest, ")") {
			t.Fatalf("id %q: URL %s", in, u)
		}
		key, err := url.PathUnescape(strings.TrimSuffix(rest, ")"))
		if err != nil {
			t.Fatalf("id %q: key does not unescape: %v", in, err)
		}
		if guidPattern.MatchString(in) {
			if key != in {
				t.Fatalf("GUID %q became %q", in, key)
			}
			return
		}
		if len(key) < 2 || key[0] != '\'' || key[len(key)-1] != '\'' {
			t.Fatalf("id %q: key %q is not a string literal", in, key)
		}
		body := key[1 : len(key)-1]
		if strings.Contains(strings.ReplaceAll(body, "''", ""), "'") {
			t.Fatalf("id %q: an unpaired quote escapes the literal %q", in, key)
		}
		if got := strings.ReplaceAll(body, "''", "'"); got != in {
			t.Fatalf("id %q: literal decodes to %q", in, got)
		}
	})
}

// Cursor decoding: any text is refused or read as an offset the client could have issued.
func FuzzOffsetCursor(f *testing.F) {
	for _, s := range []string{"", "0", "100", "-1", "1e3", "99999999999999999999", "12:50", " 7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		off, ok := parseOffset(cursor)
		if ok && (off < 0 || (cursor != "" && offsetCursor(off) != cursor)) {
			t.Fatalf("cursor %q read as offset %d", cursor, off)
		}
	})
}

func TestAnsweredTellsTheSystemsAnswerFromALostOne(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&Error{Status: http.StatusInternalServerError, Err: ErrUnavailable}, true},
		{&Error{Status: http.StatusServiceUnavailable, Err: ErrUnavailable}, true},
		{&Error{Status: http.StatusBadGateway, Err: ErrUnavailable}, false},
		{&Error{Status: http.StatusGatewayTimeout, Err: ErrUnavailable}, false},
		{&Error{Err: ErrUnavailable, Cause: context.DeadlineExceeded}, false},
		{fmt.Errorf("wrapped: %w", &Error{Status: http.StatusInternalServerError, Err: ErrUnavailable}), true},
		{context.DeadlineExceeded, false},
	} {
		if got := Answered(tc.err); got != tc.want {
			t.Errorf("Answered(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
