// Package postgres is the PostgreSQL implementation of store.Store, for
// running several schedbot processes on one database. Several
// orchestrators share the database: each Store is bound to one
// orchestrator id, and every statement it sends filters on that id.
//
// The schema is embedded (migrations/) and brought up to date by Open,
// each migration in one transaction, one process at a time (an advisory
// lock). A job is two rows: its definition (schedbot_jobs) and its status,
// the fields its runs change (schedbot_job_status, which holds the due
// index): firing a job rewrites the status alone. Due jobs (their status
// rows) and queue items are claimed FOR UPDATE SKIP LOCKED, so
// two processes never take the same one; a claimed item carries a lease
// (owner, until). Each orchestrator's audit chain is extended under a lock
// on its head row, so concurrent writers keep one verifiable chain.
package postgres
