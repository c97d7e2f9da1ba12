// Package store holds schedbot's domain records (Job, Run, QueueItem,
// AuditEvent) and the Store interface every backend implements.
//
// A Store belongs to exactly one orchestrator. All writes go through
// Store.Update, so a job change, its run records, queue items and audit
// events commit together or not at all. The audit log is append-only and
// hash-chained: each event's hash covers its encoded body (which names the
// previous hash) and the previous hash (AuditHash), so an edited or removed record is found by
// Tx.AuditVerify. store imports only the standard library.
//
// A field is added to a record in records.go alone, with its JSON name (the
// wire name): a Store keeps records whole, and storetest's round trip of
// random records shows it comes back as it was put.
package store
