package connector

import "strings"

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

// profiles gives each system its vendor's API: the host ERP is NetSuite, the second ERP
// Business Central, the CRM Salesforce, marketing Mailchimp and shipping ShipStation. A
// sixth system is a sixth profile.
var profiles = map[System]profile{
	SystemHostERP:   netsuite{},
	SystemERP2:      businessCentral{},
	SystemCRM:       salesforce{},
	SystemMarketing: mailchimp{},
	SystemShipping:  shipstation{},
}

// SystemNames is Systems as a sentence's list ("hosterp, erp2, …"), for answers that name
// the systems there are.
func SystemNames() string {
	names := make([]string, len(Systems))
	for i, s := range Systems {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Known reports whether s is one of Systems.
func (s System) Known() bool {
	_, ok := profiles[s]
	return ok
}

// ListsSyncErrors reports whether the system offers the sync-error listing the reconcile
// polls; only the host ERP does.
func (s System) ListsSyncErrors() bool {
	_, ok := profiles[s].(syncErrorLister)
	return ok
}

func (s System) String() string { return string(s) }

// vendors are the products the systems are, by the names their admins know them.
var vendors = map[System]string{
	SystemHostERP: "NetSuite", SystemERP2: "Business Central", SystemCRM: "Salesforce",
	SystemMarketing: "Mailchimp", SystemShipping: "ShipStation",
}

// Vendor is the product the system is ("Salesforce" for crm); the key for an unknown one.
func (s System) Vendor() string {
	if v, ok := vendors[s]; ok {
		return v
	}
	return string(s)
}

// validSegment refuses what would change the path's meaning once a proxy or the system
// normalises it: empty segments and dot segments. Everything else is escaped.
func validSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "\x00")
}
