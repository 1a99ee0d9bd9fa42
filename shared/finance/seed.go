package finance

import (
	"encoding/json"
	"time"
)

// DemoApprovals returns the pending approvals the local stack seeds for tenantID, created
// in the hours before now: vendor bills and an expense report as a host ERP would send
// them, and one whose ERP record has not been synced yet (no erp_id), so a newcomer can
// see an approve fail, revert and audit. Store.Create is idempotent, so seeding at every
// start is safe.
func DemoApprovals(tenantID string, now time.Time) []Approval {
	now = now.UTC().Truncate(time.Second)
	row := func(id, erpID, entity, amount, currency, vendor, desc, by string, fields json.RawMessage, age time.Duration) Approval {
		if fields == nil {
			fields = DefaultFields
		}
		at := now.Add(-age)
		return Approval{TenantID: tenantID, ID: id, ERPID: erpID, Entity: entity, Amount: amount, Currency: currency,
			Vendor: vendor, Description: desc, RequestedBy: by, Fields: fields, Status: StatusPending, CreatedAt: at, UpdatedAt: at}
	}
	return []Approval{
		row("FA-2026-0141", "VB-20431", "vendorBill", "12480.00", "EUR", "Nordwind Logistik GmbH",
			"Q4 freight, Hamburg hub: 38 FTL shipments per framework contract NW-2025-07", "m.keller", nil, 3*time.Hour),
		row("FA-2026-0142", "VB-20437", "vendorBill", "3150.75", "USD", "Acme Office Supply Co.",
			"Ergonomic chairs and monitor arms for the Austin office", "j.ortega",
			json.RawMessage(`{"approvalStatus":"approved","paymentHold":false}`), 2*time.Hour),
		row("FA-2026-0143", "ER-7781", "expenseReport", "846.20", "GBP", "Priya Raman",
			"Customer visit Leeds: rail, two nights hotel, meals", "p.raman", nil, 45*time.Minute),
		row("FA-2026-0144", "", "vendorBill", "27500.00", "EUR", "Brightline Consulting AG",
			"ERP migration workshop, phase 2 (bill not yet synced to the ERP)", "m.keller", nil, 10*time.Minute),
	}
}
