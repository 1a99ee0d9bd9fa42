package syncerror

import (
	"net/http"
	"regexp"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

var classPattern = regexp.MustCompile(`^[a-z_]{1,32}$`)

// listFilters reads the queue's own filters: class (an error class) and since (RFC 3339:
// rows claimed at or after it, which is how the console's age filter asks).
func listFilters(w http.ResponseWriter, r *http.Request, q ListQuery) (ListQuery, bool) {
	var errs []httpapi.FieldError
	v := r.URL.Query()
	if q.Class = v.Get("class"); q.Class != "" && !classPattern.MatchString(q.Class) {
		errs = append(errs, httpapi.FieldError{Field: "class", Message: "must be an error class such as value or missing"})
	}
	if s := v.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			errs = append(errs, httpapi.FieldError{Field: "since", Message: "must be an RFC 3339 time"})
		}
		q.Since = t
	}
	if len(errs) > 0 {
		httpapi.WriteInvalidQuery(w, r, errs)
		return q, false
	}
	return q, true
}
