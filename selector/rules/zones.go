package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedbot/schedbot/scheduler"
)

// Timezones: "PST", "(ET)", "London time", "in Europe/Berlin".

// pZone: "PST", "(ET)", "Pacific time", "London time", "in Europe/Berlin",
// "UTC".
func (p *parser) pZone() bool {
	start := p.i
	if p.is(0, "in", "at") {
		p.i++
	}
	if p.is(0, "us", "u.s.") && p.is(1, "eastern", "central", "mountain", "pacific") {
		p.i++ // "9am US Eastern time"
	}
	zone := ""
	switch {
	case p.is(0, "my", "our", "local") && (p.is(1, "timezone", "tz") || p.is(1, "time") && p.is(2, "zone")):
		// "at 7 in my timezone": the sender's zone, said
		p.i += 2 + btoi(p.is(1, "time"))
		return true
	case p.is(0, "my", "our") && p.is(1, "local") && p.is(2, "time"):
		p.i += 3 // "9am my local time": the sender's zone, said
		return true
	case p.is(0, "local", "my", "our") && p.is(1, "time"), p.is(0, "local") && afterTime(p.tk(-1)):
		// "9am local time", "at 9am my time", "9am local"
		p.i += 1 + btoi(p.is(1, "time"))
		return true
	case p.is(0, "utc", "gmt") && p.is(1, "+", "-") && p.tk(2).kind == tNum:
		// "6pm GMT+1": a fixed offset, as the Etc zone of the opposite
		// sign (Etc/GMT-1 is UTC+1); a part of an hour has no such zone
		h, ok := number(p.s(2))
		if !ok || h > 14 {
			p.why = refusal(fmt.Sprintf("I need a named timezone for UTC%s%s: say one such as “India time” or “Asia/Kolkata”.", p.s(1), p.s(2)))
			return false
		}
		zone = "UTC"
		if h != 0 {
			zone = fmt.Sprintf("Etc/GMT%s%d", map[string]string{"+": "-", "-": "+"}[p.s(1)], h)
		}
		if _, err := scheduler.LoadLocation(zone); err != nil {
			p.why = refusal(fmt.Sprintf("There is no UTC%s%s zone: UTC offsets run from -12 to +14.", p.s(1), p.s(2)))
			return false
		}
		p.i += 3
	case zoneAbbrev[p.s(0)] != "" && p.tk(0).kind == tWord && (len(p.s(0)) > 2 || afterTime(p.tk(-1))):
		// "PST" anywhere in a when; "pt", "et" only after a time
		zone = zoneAbbrev[p.s(0)]
		p.i++
		if p.is(0, "time") {
			p.i++
		}
	case zonePairs[p.s(0)+" "+p.s(1)] != "":
		zone = zonePairs[p.s(0)+" "+p.s(1)]
		p.i += 2
		if !p.is(0, "time") && p.s(-3) != "in" {
			p.i = start
			return false
		}
		if p.is(0, "time") {
			p.i++
		}
	case zoneWords[p.s(0)] != "":
		zone = zoneWords[p.s(0)]
		p.i++
		if p.is(0, "time", "standard", "daylight") {
			p.i++
			if p.is(0, "time") {
				p.i++
			}
		} else if !(slices.Contains([]string{"utc", "gmt", "zulu"}, p.s(-1)) || slices.Contains([]string{"pacific", "eastern", "central", "mountain"}, p.s(-1)) && afterTime(p.tk(-2))) {
			// "9am Pacific"; "central" alone is a word
			p.i = start
			return false
		}
	default:
		// an IANA id, written as tokens glued together: europe / berlin
		j := p.i
		name := ""
		for j < len(p.t) && (p.t[j].kind == tWord || p.t[j].s == "/" || p.t[j].s == "_") && (j == p.i || p.t[j].i == p.t[j-1].j) {
			name += p.t[j].s
			j++
		}
		if !strings.Contains(name, "/") {
			p.i = start
			return false
		}
		loc, err := scheduler.LoadLocation(canonicalZone(name))
		if err != nil {
			p.i = start
			return false
		}
		zone = loc.String()
		p.i = j
		if p.is(0, "time") {
			p.i++
		}
	}
	if p.w.zone != "" && p.w.zone != zone {
		return false
	}
	p.w.zone = zone
	return true
}

// afterTime: t ends a time of day ("9am", "17:30", "pm", "noon").
func afterTime(t tok) bool {
	return t.kind == tNum || t.s == "am" || t.s == "pm" || t.s == "noon" || t.s == "midnight" || t.s == "o'clock" || t.s == "("
}

// knownZone says whether s names an IANA zone, in any case.
func knownZone(s string) bool {
	_, err := scheduler.LoadLocation(canonicalZone(s))
	return err == nil
}

func canonicalZone(s string) string {
	parts := strings.Split(s, "/")
	for i, part := range parts {
		sub := strings.Split(part, "_")
		for j, q := range sub {
			if len(q) > 0 && !(i == 0 && strings.EqualFold(part, "etc")) {
				sub[j] = strings.ToUpper(q[:1]) + strings.ToLower(q[1:])
			}
		}
		parts[i] = strings.Join(sub, "_")
	}
	return strings.Join(parts, "/")
}

var zoneAbbrev = map[string]string{
	"pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "pt": "America/Los_Angeles",
	"cst": "America/Chicago", "cdt": "America/Chicago", "ct": "America/Chicago",
	"est": "America/New_York", "edt": "America/New_York", "et": "America/New_York",
	"mst": "America/Denver", "mdt": "America/Denver", "mt": "America/Denver",
	"utc": "UTC", "gmt": "UTC", "z": "UTC", "cet": "Europe/Berlin", "cest": "Europe/Berlin", "bst": "Europe/London",
	"ist": "Asia/Kolkata", "jst": "Asia/Tokyo", "aest": "Australia/Sydney", "aedt": "Australia/Sydney",
	"nzst": "Pacific/Auckland", "nzdt": "Pacific/Auckland", "hst": "Pacific/Honolulu", "akst": "America/Anchorage",
	"sgt": "Asia/Singapore", "hkt": "Asia/Hong_Kong", "kst": "Asia/Seoul", "eet": "Europe/Athens", "wet": "Europe/Lisbon",
}

var zoneWords = map[string]string{
	"pacific": "America/Los_Angeles", "eastern": "America/New_York", "central": "America/Chicago",
	"mountain": "America/Denver", "utc": "UTC", "gmt": "UTC", "zulu": "UTC",
	"london": "Europe/London", "paris": "Europe/Paris", "berlin": "Europe/Berlin", "madrid": "Europe/Madrid",
	"rome": "Europe/Rome", "amsterdam": "Europe/Amsterdam", "dublin": "Europe/Dublin", "lisbon": "Europe/Lisbon",
	"stockholm": "Europe/Stockholm", "zurich": "Europe/Zurich", "vienna": "Europe/Vienna", "warsaw": "Europe/Warsaw",
	"athens": "Europe/Athens", "helsinki": "Europe/Helsinki", "moscow": "Europe/Moscow", "istanbul": "Europe/Istanbul",
	"tokyo": "Asia/Tokyo", "seoul": "Asia/Seoul", "shanghai": "Asia/Shanghai", "beijing": "Asia/Shanghai",
	"singapore": "Asia/Singapore", "india": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "bangalore": "Asia/Kolkata",
	"delhi": "Asia/Kolkata", "dubai": "Asia/Dubai", "sydney": "Australia/Sydney", "melbourne": "Australia/Melbourne",
	"brisbane": "Australia/Brisbane", "perth": "Australia/Perth", "auckland": "Pacific/Auckland",
	"chicago": "America/Chicago", "denver": "America/Denver", "seattle": "America/Los_Angeles",
	"toronto": "America/Toronto", "vancouver": "America/Vancouver", "nyc": "America/New_York",
	"boston": "America/New_York", "austin": "America/Chicago", "phoenix": "America/Phoenix",
	"hawaii": "Pacific/Honolulu", "honolulu": "Pacific/Honolulu", "alaska": "America/Anchorage",
	"mexico": "America/Mexico_City", "brazil": "America/Sao_Paulo", "japan": "Asia/Tokyo", "korea": "Asia/Seoul",
	"china": "Asia/Shanghai", "france": "Europe/Paris", "germany": "Europe/Berlin", "spain": "Europe/Madrid",
	"uk": "Europe/London", "ireland": "Europe/Dublin", "israel": "Asia/Jerusalem",
}

// Two-word places.
var zonePairs = map[string]string{
	"new york": "America/New_York", "los angeles": "America/Los_Angeles", "san francisco": "America/Los_Angeles",
	"sao paulo": "America/Sao_Paulo", "são paulo": "America/Sao_Paulo", "hong kong": "Asia/Hong_Kong",
	"mexico city": "America/Mexico_City", "buenos aires": "America/Argentina/Buenos_Aires",
	"cape town": "Africa/Johannesburg", "tel aviv": "Asia/Jerusalem",
}

// senderDays reads a day said relative to today ("tomorrow at 10am CET")
// in another zone than the sender's, here being now there. Said on a
// Friday evening in New York, Saturday already in Berlin, it is the
// sender's tomorrow: Saturday. Where that day's time there has passed
// (9am JST, said at 8pm in New York), it is the next one when that falls
// on the sender's tomorrow (Sunday 9am in Tokyo, Saturday 7pm in New
// York); "today at 8:30am Chicago time" said at 10am in New York has
// passed, and is asked about.
func senderDays(w when, sender, here time.Time) when {
	if !w.hasDay {
		return w
	}
	sy, sm, sd := sender.Date()
	zy, zm, zd := here.Date()
	meant := time.Date(sy, sm, sd+w.dayRel, 12, 0, 0, 0, time.UTC) // the sender's day named
	w.dayRel += int(time.Date(sy, sm, sd, 12, 0, 0, 0, time.UTC).Sub(time.Date(zy, zm, zd, 12, 0, 0, 0, time.UTC)).Hours() / 24)
	if len(w.clocks) != 1 {
		return w
	}
	h, vague := w.clocks[0].resolved(w.part)
	if vague {
		return w
	}
	at := func(rel int) time.Time {
		return scheduler.WallInstant(zy, zm, zd+rel, h, w.clocks[0].m, here.Location())
	}
	if next := at(w.dayRel + 1).In(sender.Location()); !at(w.dayRel).After(here) && next.After(here) &&
		time.Date(next.Year(), next.Month(), next.Day(), 12, 0, 0, 0, time.UTC).Equal(meant) {
		w.dayRel++
	}
	return w
}
