package connector

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The poll reads the custom record the NetSuite SDF project defines and derives errorId as
// its user-event script does: the same record type, the same nine fields, the same
// fallback prefix.
func TestSyncErrorPollAgreesWithTheNetSuiteProject(t *testing.T) {
	root := filepath.Join("..", "..", "netsuite", "src")
	object, err := os.ReadFile(filepath.Join(root, "Objects", syncErrorRecord+".xml"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "FileCabinet", "SuiteScripts", "sync_error_assist", "sea_sync_error_ue.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(object), `<customrecordtype scriptid="`+syncErrorRecord+`">`) {
		t.Fatalf("the SDF object does not define %s", syncErrorRecord)
	}
	var defined []string
	for _, m := range regexp.MustCompile(`<customrecordcustomfield scriptid="([a-z0-9_]+)">`).FindAllStringSubmatch(string(object), -1) {
		// The retry request's fields are the service's and the retry script's, not the error's.
		if !strings.HasPrefix(m[1], "custrecord_sea_retry_") {
			defined = append(defined, m[1])
		}
	}
	polled := []string{colErrorID, colRecordType, colRecordID, colErrorCode, colMessage, colPayload, colOccurredAt, colExternal, colDirection}
	slices.Sort(defined)
	slices.Sort(polled)
	if !slices.Equal(defined, polled) {
		t.Fatalf("the record's fields %v, the poll reads %v", defined, polled)
	}
	for _, col := range polled {
		if !strings.Contains(SyncErrorQuery, col) {
			t.Errorf("the query does not select %s", col)
		}
	}
	if !strings.Contains(string(script), "FALLBACK_ERROR_ID_PREFIX = '"+FallbackErrorIDPrefix+"'") {
		t.Fatalf("the script's errorId fallback is not %q", FallbackErrorIDPrefix)
	}
}
