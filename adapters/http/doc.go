// Package httpapi is schedbot's HTTP API (adapters/http): schedules, runs,
// a calendar, the audit log and a preview of what a text would do, over
// REST, for a team's other tools and the web console.
//
// It is one more adapter beside Slack and the terminal. Every change goes
// through the orchestrator's functions.Registry, with an Actor built from
// the caller's bearer token, so a token has exactly the authority chat
// gives its sender; only the read-only views the functions do not cover
// (runs, the calendar, the audit log) read the store directly. New returns
// an http.Handler; serve mounts it on server.http_listen.
package httpapi
