package connector

import (
	"net/url"
	"strings"
)

// System names one of the production systems the service connects to.
type System string

// The five production systems.
const (
	SystemHostERP   System = "hosterp"
	SystemERP2      System = "erp2"
	SystemCRM       System = "crm"
	SystemMarketing System = "marketing"
	SystemShipping  System = "shipping"
)

// Systems lists every known system, host ERP first.
var Systems = []System{SystemHostERP, SystemERP2, SystemCRM, SystemMarketing, SystemShipping}

// convention is everything that differs between the systems' REST APIs. All five
// authenticate the same way (Authorization: Bearer); a system that does not would get an
// auth field here rather than a client of its own.
type convention struct {
	// recordPrefix is followed by /{entity}/{id}.
	recordPrefix string
	// syncErrorsPath is empty for systems that have no sync-error listing.
	syncErrorsPath string
}

var conventions = map[System]convention{
	SystemHostERP:   {recordPrefix: "/api/records", syncErrorsPath: "/api/sync-errors"},
	SystemERP2:      {recordPrefix: "/v2"},
	SystemCRM:       {recordPrefix: "/crm/v1/objects"},
	SystemMarketing: {recordPrefix: "/marketing/v3"},
	SystemShipping:  {recordPrefix: "/shipping/v1"},
}

// Known reports whether s is one of Systems.
func (s System) Known() bool {
	_, ok := conventions[s]
	return ok
}

// ListsSyncErrors reports whether the system offers the sync-error listing the reconcile
// polls; only the host ERP does.
func (s System) ListsSyncErrors() bool { return conventions[s].syncErrorsPath != "" }

func (s System) String() string { return string(s) }

// recordPath is the escaped path of one record below the base URL.
func (s System) recordPath(entity, id string) string {
	return conventions[s].recordPrefix + "/" + url.PathEscape(entity) + "/" + url.PathEscape(id)
}

// validSegment refuses what would change the path's meaning once a proxy or the system
// normalises it: empty segments and dot segments. Everything else is escaped.
func validSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "\x00")
}
