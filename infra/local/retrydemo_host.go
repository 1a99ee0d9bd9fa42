package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"strings"
	"time"

	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

// The host ERP's side of make demo-retry: its own sync-error record
// (netsuite/src/Objects/customrecord_sea_sync_error.xml) on the fake host ERP, and the
// scheduled retry script (sea_sync_error_retry_ss.js) played over NetSuite's record
// service, as the real one would act through N/record.

const syncErrorRecord = "customrecord_sea_sync_error"

// The retry request's fields, as the service writes them (shared/syncerror/wire).
const (
	hostRequested = syncerrorwire.HostRetryRequested
	hostStatus    = syncerrorwire.HostRetryStatus
	hostResult    = syncerrorwire.HostRetryResult
	hostFix       = syncerrorwire.HostRetryFix
)

func hostRecordPath(id string) string {
	return "/fake/hosterp" + netsuiteRecordPath + syncErrorRecord + "/" + id
}

// demoPayload is what the integration failed to save: the values the host's script
// re-applies (an inbound error's payload) when it re-runs the sync.
func demoPayload(errorID string) map[string]any {
	return map[string]any{"shipcity": "Berlin", "memo": "webshop order " + errorID}
}

// createHostSyncError creates the host ERP's sync-error record an integration writes, and
// returns its internal id. NetSuite's record service answers a create with 204 and the new
// record's URL in Location ("Creating a Record Instance",
// https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1545141395.html:
// "no body content returned (HTTP Code 204). The URL of the newly created record is given in
// the Location header of the response").
func createHostSyncError(api *localAPI, errorID, code, message string) (string, error) {
	payload, _ := json.Marshal(demoPayload(errorID))
	body, _ := json.Marshal(map[string]any{"custrecord_sea_error_id": errorID, "custrecord_sea_record_type": "salesOrder",
		"custrecord_sea_record_id": "SO-10042", "custrecord_sea_error_code": code, "custrecord_sea_message": message,
		"custrecord_sea_payload": string(payload), "custrecord_sea_occurred_at": time.Now().UTC().Format(time.RFC3339),
		"custrecord_sea_external_system": "webshop", "custrecord_sea_direction": "inbound"})
	req, err := http.NewRequestWithContext(api.ctx, "POST", api.base+"/fake/hosterp"+netsuiteRecordPath+syncErrorRecord, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json") // no Authorization: an inspection (netsuite_m2m.go)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("create %s (is `make run` running?): %w", syncErrorRecord, err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusNoContent || loc == "" {
		return "", fmt.Errorf("create %s answered %d (Location %q)", syncErrorRecord, resp.StatusCode, loc)
	}
	return path.Base(loc), nil
}

// playRetryScript does what sea_sync_error_retry_ss.js does for one requested record: it
// saves the record the error is about with an inbound error's stored payload and then the
// service's approved fix (custrecord_sea_retry_fix) applied, which re-runs the record's
// integration in NetSuite, and answers on the sync-error record: the request and its fix
// cleared, custrecord_sea_retry_status "succeeded" and what it re-ran. (The script saves
// the record even with nothing to apply; over the record service a save needs a field.)
func playRetryScript(api *localAPI, id string, rec map[string]any) error {
	values := map[string]any{}
	if strings.EqualFold(fmt.Sprint(rec["custrecord_sea_direction"]), "inbound") {
		if err := mergeJSON(values, rec["custrecord_sea_payload"]); err != nil {
			return fmt.Errorf("the record's payload: %w", err)
		}
	}
	if err := mergeJSON(values, rec[hostFix]); err != nil {
		return fmt.Errorf("the request's fix: %w", err)
	}
	typ, rid := fmt.Sprint(rec["custrecord_sea_record_type"]), fmt.Sprint(rec["custrecord_sea_record_id"])
	target := typ + " " + rid
	if len(values) > 0 {
		if err := patchFake(api, "/fake/hosterp"+netsuiteRecordPath+typ+"/"+rid, values); err != nil {
			return err
		}
	}
	result := "re-ran the sync of " + target + " at " + time.Now().UTC().Format(time.RFC3339)
	if err := patchFake(api, hostRecordPath(id), map[string]any{hostRequested: false, hostFix: "", hostStatus: "succeeded", hostResult: result}); err != nil {
		return err
	}
	fmt.Printf("   saved %s with %d field(s) of the payload and fix; %s %s: %s=succeeded, %q\n", target, len(values), syncErrorRecord, id, hostStatus, result)
	return nil
}

// mergeJSON adds the fields of a JSON object held as text to into ("" adds none).
func mergeJSON(into map[string]any, text any) error {
	s, _ := text.(string)
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		return err
	}
	maps.Copy(into, obj)
	return nil
}

// patchFake updates a fake system's record as its vendor's record service does (no
// credentials: an inspection).
func patchFake(api *localAPI, path string, fields map[string]any) error {
	body, _ := json.Marshal(fields)
	code, out, err := api.do("PATCH", path, body, http.Header{})
	if err != nil || code != http.StatusNoContent {
		return fmt.Errorf("PATCH %s answered %d %s (%v)", path, code, firstLine(out), err)
	}
	return nil
}
