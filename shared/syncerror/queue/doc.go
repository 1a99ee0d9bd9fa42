// Package queue is the operator queue's reads: the listing with its filters, search, sort
// and merge of statuses (ListHandler), the CSV export, a row's detail (DetailHandler), the
// systems a tenant names, and the people on a row as the viewer may see them. Each row
// says who may approve it by the tenant's approval policy (Annotate). Summarize and Detail
// are the row as the queue shows it, which the decisions answer with.
//
// It may import the core (shared/syncerror) and policy (who may approve a row) only: no
// other room of the feature.
package queue
