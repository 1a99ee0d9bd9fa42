package ai

import (
	"cmp"
	"slices"
	"strings"
)

// scope is what an error's codes are read against: the catalogues of the systems the
// error is about. Those are its external system (externalSystem, or the product the
// worker says it is, or failing both the integration's name) and the host ERP it was
// recorded in (hostSystem; a flow's failed write names none). Generic codes such as
// INVALID_FIELD_VALUE are in more than one vendor's catalogue, and an operator told what
// ShipStation means by a code about a NetSuite error stops trusting the proposal: a code
// only another vendor lists still counts as evidence of its class (its name says as much
// whoever uses it), but the rationale cites no vendor for it.
type scope struct {
	// own are the catalogues of the error's systems, the one that refused the record first.
	own []*catalogue
	// external is the external system's catalogue: how it uses HTTP statuses applies,
	// since a status is what a remote system answered the host's integration.
	external *catalogue
	// refusing is the catalogue of the system that refused the record (nil when the
	// diagnoser has none) and name how the rationale names that system.
	refusing *catalogue
	name     string
	// unknown is how the rationale names an external system without a catalogue ("" when
	// the error names none).
	unknown string
}

// scopeOf reads the error's systems from its record. The system that refused the record
// is the one a retry goes to (README, "Operator queue API"): the host ERP for an inbound
// error, the external system for an outbound one, and the external system when the
// direction is not said.
func scopeOf(req DiagnosisRequest) scope {
	extName := cmp.Or(strings.TrimSpace(req.ExternalVendor), strings.TrimSpace(req.ExternalSystem))
	ext := vendorOf(extName)
	if ext == nil && extName == "" {
		ext = vendorOf(req.Integration)
	}
	host := vendorOf(req.HostSystem)
	s := scope{external: ext}
	if ext == nil {
		s.unknown = extName
	}
	hostName := nameOf(host, strings.TrimSpace(req.HostSystem))
	if req.Direction == "inbound" && hostName != "" {
		s.own, s.refusing, s.name = compactCatalogues(host, ext), host, hostName
		return s
	}
	s.own, s.refusing, s.name = compactCatalogues(ext, host), ext, cmp.Or(nameOf(ext, extName), "the target system")
	return s
}

// nameOf is the vendor's own spelling when a catalogue knows the system ("netsuite" is
// NetSuite), else the name as the record gives it.
func nameOf(c *catalogue, given string) string {
	if c != nil {
		return c.vendor
	}
	return given
}

func compactCatalogues(cs ...*catalogue) []*catalogue {
	var out []*catalogue
	for _, c := range cs {
		if c != nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// codeMatch is a catalogue entry an error's code matched, with whose catalogue it is.
type codeMatch struct {
	vendorCode
	// own is the catalogue of the error's own system that lists the code; nil for a code
	// only other vendors list (others says how many) or a runtime's name.
	own    *catalogue
	others int
}

// codeEvidence finds the codes an error carries: its error code field, and code-shaped
// tokens of its message (SALESFORCE_STYLE codes, SOAP faults, exception names), since
// connectors often put a vendor's body, with its code, into the message. The catalogues
// of the error's own systems are searched first, then the other vendors' and the
// runtime's.
func (s scope) codeEvidence(code, msg string) []codeMatch {
	var out []codeMatch
	seen := map[string]bool{}
	find := func(token string) {
		n := normCode(token)
		if n == "" || seen[n] {
			return
		}
		seen[n] = true
		if m, ok := s.lookup(token); ok {
			m.code = strings.TrimSpace(token) // as the error spells it, not its family
			out = append(out, m)
		}
	}
	if code != "" {
		find(code)
	}
	for _, tok := range codeTokens(msg) {
		find(tok)
	}
	return out
}

// lookup finds one code: in the error's own catalogues, else in the first other vendor's
// that lists it (counting how many do), else among the runtimes' names.
func (s scope) lookup(token string) (codeMatch, bool) {
	for _, c := range s.own {
		if v, ok := c.lookup(token); ok {
			return codeMatch{vendorCode: v, own: c}, true
		}
	}
	var found codeMatch
	for _, c := range catalogues() {
		if slices.Contains(s.own, c) {
			continue
		}
		if v, ok := c.lookup(token); ok {
			if found.others == 0 {
				found.vendorCode = v
			}
			found.others++
		}
	}
	if found.others > 0 {
		return found, true
	}
	v, ok := runtimeCatalogue.lookup(token)
	return codeMatch{vendorCode: v}, ok
}

// notListed says, for a code only other vendors list, in a few words for the operator,
// that the error's own systems' documentation does not list it: " (not among NetSuite's
// documented codes)". The trace keeps which catalogue matched (otherVendors).
func (s scope) notListed() string {
	if len(s.own) > 0 {
		names := make([]string, len(s.own))
		for i, c := range s.own {
			names[i] = c.vendor + "'s"
		}
		return " (not among " + strings.Join(names, " or ") + " documented codes)"
	}
	if s.unknown != "" {
		return " (" + s.unknown + "'s own codes are not known here)"
	}
	return ""
}
