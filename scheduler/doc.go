// Package scheduler computes when jobs fire: cron in an IANA timezone with
// the DST rule of docs/DESIGN.md section 5, intervals on a fixed grid, and
// one-time runs; and it describes each schedule in English.
//
// Every function here takes "now" as an argument; nothing reads the clock.
package scheduler

import _ "time/tzdata" // zones are right even on a machine without /usr/share/zoneinfo
