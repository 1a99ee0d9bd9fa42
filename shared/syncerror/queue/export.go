package queue

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Export: GET …/proposals?format=csv answers the listing's rows (same filters, search and
// sort) as CSV, in chunks. A Lambda behind API Gateway's HTTP API answers at most 6 MB and
// cannot stream (response streaming needs a function URL, outside the API's routes,
// authentication and CORS), and writing the file to S3 for a presigned link would keep a
// second copy of customer data at rest with a bucket, a key and grants of its own. So each
// answer holds up to ExportChunkRows rows and ExportChunkBytes bytes, and names the next
// chunk in ExportCursorHeader; the console reads every chunk into one file. Only the first
// chunk has the header line, so the chunks concatenate into one CSV.
const (
	ExportChunkRows    = 2000
	ExportChunkBytes   = 3 << 20 // plus at most one page of 100 rows of 16 KiB messages: under 6 MB
	ExportCursorHeader = "X-Next-Cursor"
)

// ExportColumns are the CSV's columns, in order; they only ever grow at the end.
var ExportColumns = []string{"id", "errorId", "status", "class", "confidence", "recordType", "recordId", "errorCode",
	"message", "externalSystem", "occurredAt", "claimedAt", "assignee", "tags", "applyError"}

func exportRow(s Summary) []string {
	conf, occurred := "", ""
	if s.Confidence != nil {
		conf = strconv.FormatFloat(*s.Confidence, 'f', 2, 64)
	}
	if s.OccurredAt != nil {
		occurred = s.OccurredAt.Format(time.RFC3339)
	}
	row := []string{s.ID, s.ErrorID, string(s.Status), s.Class, conf, s.RecordType, s.RecordID, s.ErrorCode,
		s.Message, s.ExternalSystem, occurred, s.ClaimedAt.Format(time.RFC3339), s.Assignee, strings.Join(s.Tags, " "), s.ApplyError}
	for i, v := range row {
		row[i] = cellSafe(v)
	}
	return row
}

// cellSafe keeps a spreadsheet from reading a cell as a formula (CSV injection): a value
// that starts with = + - @ or a tab or carriage return is prefixed with a quote.
func cellSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// exportCSV answers one chunk of the export, its rows masked as the listing masks them.
func (o *Service) exportCSV(w http.ResponseWriter, r *http.Request, tenantID string, q syncerror.ListQuery, sort string) {
	first := q.Cursor == ""
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	if first {
		_ = cw.Write(ExportColumns)
	}
	next, err := o.exportRows(r.Context(), tenantID, q, sort, cw, &buf)
	if errors.Is(err, syncerror.ErrBadCursor) {
		httpapi.WriteBadCursor(w, r)
		return
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", `attachment; filename="sync-errors-`+string(q.Status)+`.csv"`)
	if next != "" {
		h.Set(ExportCursorHeader, next)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// exportRows writes rows page by page until the chunk is full or the listing ends, and
// returns the cursor of the rest.
func (o *Service) exportRows(ctx context.Context, tenantID string, q syncerror.ListQuery, sort string, cw *csv.Writer, buf *bytes.Buffer) (string, error) {
	q.Limit = syncerror.MaxListLimit
	for rows := 0; rows < ExportChunkRows && buf.Len() < ExportChunkBytes; {
		page, _, err := o.sortedPage(ctx, tenantID, q, sort)
		if err != nil {
			return "", err
		}
		items := make([]Summary, len(page.Claims))
		for i, c := range page.Claims {
			items[i] = o.Summarize(ctx, c)
			_ = cw.Write(exportRow(items[i]))
		}
		cw.Flush()
		rows += len(items)
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			return "", cw.Error()
		}
	}
	return q.Cursor, cw.Error()
}
