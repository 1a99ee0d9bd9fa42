// Package automation is what the tenant's auto rules do and how they fare: AutoApply (the
// worker's learned fix before the AI, then the rule's shadow record or enforced apply
// through the approve route's own path), the reconcile's ordering of old automation
// records (OrderAutomation), and the insights route (InsightsReader: the window's counts by
// class, system and day, and each rule's record against people's decisions).
//
// The automation record itself (syncerror.Automation, its outcomes) is a document of the
// core, which the decisions update and the knowledge routes list.
//
// It may import the core (shared/syncerror), policy (the rules, the cap, the records'
// store), queue (the tenant's system names) and decisions (the approve an enforced rule
// applies through) only: no other room of the feature.
package automation
