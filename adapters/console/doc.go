// Package console is schedbot's web console: a calendar of every
// schedule, each job's runs and audit trail, creating by typing English
// with a live preview, and the audit log — served beside the HTTP API on
// the same listener, under /console/.
//
// The console is a client of the API and holds no authority of its own:
// a signed-in session is an API token of the person who signed in (kept
// as a hash in the orchestrator's store, like every token), and each page
// asks the API, in process, with that token. What a person may see and
// change is therefore exactly what chat and the API let them.
//
// Pages are html/template, rendered on the server; the little JavaScript
// there is (static/console.js: the calendar's layout and drag, the live
// preview) is a file, never inline, and a Content-Security-Policy forbids
// any other. Every state-changing request carries the session's CSRF
// token. Sign-in is a one-time link printed by serve, Sign in with Slack
// (OpenID Connect), or an API token pasted into the sign-in page.
package console
