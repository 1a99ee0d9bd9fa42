package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// The demo's record identity across systems: the host ERP → CRM flow finds an Account by
// the Salesforce external-id field ERP_Customer_Id__c (an upsert), creating it for a new
// customer, and the cross-reference links both ways, so the CRM → host ERP flow finds the
// customer of an Account by it.

// erpIDField is the CRM Account's external-id field holding the host ERP customer id.
const erpIDField = "ERP_Customer_Id__c"

// demoMatches are the demo flows' match configuration, by flow id.
var demoMatches = map[string]*flow.Match{
	"erp-customer-to-crm": {By: flow.MatchExternalID, Field: erpIDField, Create: true},
	"crm-account-to-erp":  {By: flow.MatchNone},
}

// seedDemoXRef links the seeded customers C-2001 and C-2002 (make demo-retry's) with their
// seeded CRM Accounts, as a first match by the forward flow would have (the Accounts' ids
// stay the customers', which the browser tests and the loop story use). A link already
// there is kept.
func seedDemoXRef(ctx context.Context, xrefs flow.XRefStore, now time.Time) error {
	for _, id := range []string{"C-2001", retryAccount} {
		e := flow.XRef{Source: flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: id},
			Target: flow.Ref{System: connector.SystemCRM, Entity: "Account"}, State: flow.XRefPending, Anchor: id,
			ClaimedBy: "make-run", FlowID: "erp-customer-to-crm", CreatedAt: now, UpdatedAt: now}
		if _, err := xrefs.ClaimXRef(ctx, demoTenant, e); errors.Is(err, flow.ErrTaken) {
			continue
		} else if err != nil {
			return fmt.Errorf("seed cross-reference: %w", err)
		}
		e.State, e.Target.ID, e.Action, e.LinkedBy = flow.XRefLinked, id, flow.ActionMatched, "make-run"
		if err := xrefs.LinkXRef(ctx, demoTenant, e); err != nil {
			return err
		}
	}
	return nil
}

// xrefDemo is the story's new-customer part: a customer the CRM has never seen gets an
// Account, its id is in the cross-reference and the run, its next change updates that
// Account, and two first changes at once still make one Account.
func xrefDemo(api *localAPI, tag, runTag string) error {
	customer := "C-" + tag
	fmt.Printf("\n1b. A new customer %s is created in the host ERP; the flow creates its CRM Account (upsert by %s):\n", customer, erpIDField)
	post := eventPoster(api, runTag)
	first, err := post(customer, "Fabrikam Handels AG", "+49 30 555 "+tag[2:])
	if err != nil {
		return err
	}
	if err := expectRun(first, flow.OutcomeWritten, flow.ActionCreated, ""); err != nil {
		return err
	}
	account := first.TargetID
	if err := showXRef(api, customer, account); err != nil {
		return err
	}
	fmt.Printf("\n1c. The customer changes again; the same Account %s is updated:\n", account)
	second, err := post(customer, "Fabrikam Handels AG", "+49 30 556 "+tag[2:])
	if err == nil {
		err = expectRun(second, flow.OutcomeWritten, flow.ActionUpdated, account)
	}
	if err != nil {
		return err
	}
	return concurrentDemo(api, post, "C-"+tag+"-2")
}

// eventPoster posts host ERP customer changes and reads each one's run.
func eventPoster(api *localAPI, runTag string) func(customer, name, phone string) (flow.Run, error) {
	var mu sync.Mutex
	n := 0
	return func(customer, name, phone string) (flow.Run, error) {
		mu.Lock()
		n++
		id := fmt.Sprintf("EV-%s-x%d", runTag, n)
		mu.Unlock()
		body, _ := json.Marshal(map[string]any{"eventId": id, "entity": "customer", "recordId": customer,
			"changedAt": time.Now().UTC().Format(time.RFC3339), "fields": map[string]any{"companyName": name, "phone": phone}})
		code, out, err := api.flowEvent(connector.SystemHostERP, id, body)
		var acc flow.EventResponse
		if err == nil && (code != http.StatusAccepted || json.Unmarshal(out, &acc) != nil || len(acc.RunIDs) != 1) {
			err = fmt.Errorf("change event answered %d %s", code, firstLine(out))
		}
		if err != nil {
			return flow.Run{}, err
		}
		return readRun(api, acc.RunIDs[0])
	}
}

func readRun(api *localAPI, id string) (flow.Run, error) {
	code, out, err := api.do("GET", "/api/flows/runs/"+id, nil, nil)
	var run flow.Run
	if err == nil && (code != http.StatusOK || json.Unmarshal(out, &run) != nil) {
		err = fmt.Errorf("run %s answered %d %s", id, code, firstLine(out))
	}
	return run, err
}

// expectRun prints a run and checks its outcome, what it did and (when set) its target.
func expectRun(r flow.Run, outcome flow.Outcome, action, target string) error {
	fmt.Printf("   run %s of %s: %s, %s crm/Account/%s — %s\n", r.ID, r.FlowID, r.Outcome, r.TargetAction, r.TargetID, r.Decision)
	if r.Outcome != outcome || r.TargetAction != action || r.TargetID == "" || target != "" && r.TargetID != target {
		return fmt.Errorf("run %s: %s %s %s, want %s %s %s", r.ID, r.Outcome, r.TargetAction, r.TargetID, outcome, action, target)
	}
	return nil
}

// showXRef reads the customer's cross-reference and checks it names the Account.
func showXRef(api *localAPI, customer, account string) error {
	q := url.Values{"system": {"hosterp"}, "entity": {"customer"}, "id": {customer}}
	code, out, err := api.do("GET", "/api/flows/xrefs?"+q.Encode(), nil, nil)
	var list flow.XRefList
	if err == nil && (code != http.StatusOK || json.Unmarshal(out, &list) != nil) {
		err = fmt.Errorf("GET /api/flows/xrefs answered %d %s", code, firstLine(out))
	}
	if err != nil {
		return err
	}
	for _, e := range list.Items {
		if e.Target.System == connector.SystemCRM && e.State == flow.XRefLinked && e.Target.ID == account {
			fmt.Printf("   cross-reference: hosterp/customer/%s ↔ crm/Account/%s (%s by run %s)\n", customer, account, e.Action, e.LinkedBy)
			return nil
		}
	}
	return fmt.Errorf("the cross-reference of %s does not name Account %s: %s", customer, account, firstLine(out))
}

// concurrentDemo posts two first changes of one new customer at once. One run finds the
// customer unclaimed and creates the Account; the other either meets its claim and waits
// (the redrive then writes it to the same Account) or comes after and updates it.
func concurrentDemo(api *localAPI, post func(customer, name, phone string) (flow.Run, error), customer string) error {
	fmt.Printf("\n1d. Two first changes of another new customer %s arrive at once; one Account is made:\n", customer)
	runs := make([]flow.Run, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], errs[i] = post(customer, "Contoso Logistik GmbH", fmt.Sprintf("+49 89 555 010%d", i))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, r := range runs {
		fmt.Printf("   run %s: %s — %s\n", r.ID, r.Outcome, r.Decision)
		for deadline := time.Now().Add(30 * time.Second); r.Outcome == flow.OutcomeRetrying; {
			if time.Now().After(deadline) {
				return fmt.Errorf("run %s still retrying after 30 s: %s", r.ID, r.Decision)
			}
			time.Sleep(time.Second)
			if code, out, err := api.do("POST", "/local/reconcile", nil, nil); err != nil || code != http.StatusOK {
				return fmt.Errorf("the backstops answered %d %s (%v)", code, firstLine(out), err)
			}
			var err error
			if r, err = readRun(api, r.ID); err != nil {
				return err
			}
			if r.Outcome != flow.OutcomeRetrying {
				fmt.Printf("   the redrive took run %s up: %s\n", r.ID, r.Outcome)
			}
		}
		runs[i] = r
	}
	// Each run writes the one Account, except one whose change is older than a change of
	// the same customer written before it (the waiting run, redriven after the other
	// wrote): the guard skips it as superseded, never writing the older phone over the newer.
	created, written := 0, 0
	for _, r := range runs {
		superseded := r.Outcome == flow.OutcomeSkipped && len(r.Superseded) > 0
		if r.Outcome != flow.OutcomeWritten && !superseded || r.TargetID != runs[0].TargetID {
			return fmt.Errorf("runs %+v and %+v did not write one Account (each written, or skipped as superseded)", runs[0], runs[1])
		}
		if r.Outcome == flow.OutcomeWritten {
			written++
		}
		if r.TargetAction == flow.ActionCreated {
			created++
		}
	}
	n, err := accountsOf(api, customer)
	if err != nil {
		return err
	}
	note := "both runs wrote"
	if written == 1 {
		note = "one run wrote (the other's change was older than one written: superseded)"
	}
	fmt.Printf("   %s crm/Account/%s; %d run created it; the CRM holds %d Account for %s\n", note, runs[0].TargetID, created, n, customer)
	if written == 0 {
		return fmt.Errorf("neither run wrote the Account")
	}
	if created != 1 || n != 1 {
		return fmt.Errorf("%d runs created an Account and the CRM holds %d, want one", created, n)
	}
	return nil
}

// accountsOf counts the fake CRM's Accounts holding the customer id, by SOQL as
// Salesforce answers it.
func accountsOf(api *localAPI, customer string) (int, error) {
	soql := fmt.Sprintf(connector.SalesforceFindQuery, "Account", erpIDField, "'"+customer+"'", 10)
	code, out, err := api.do("GET", "/fake/crm/services/data/v"+connector.SalesforceAPIVersion+"/query?q="+url.QueryEscape(soql), nil, http.Header{})
	var res struct {
		TotalSize int `json:"totalSize"`
	}
	if err == nil && (code != http.StatusOK || json.Unmarshal(out, &res) != nil) {
		err = fmt.Errorf("SOQL answered %d %s", code, firstLine(out))
	}
	return res.TotalSize, err
}
