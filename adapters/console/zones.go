package console

import (
	_ "embed"
	"strings"
	"sync"
	"time"
)

// zones.txt is UTC and the zones of the tz database's zone1970.tab: one
// per region people live in, which is what a picker should offer (the
// scheduler accepts every IANA name, links included).
//
//go:embed zones.txt
var zonesTxt string

var zoneNames = sync.OnceValue(func() []string { return strings.Fields(zonesTxt) })

// zoneOption is one zone of the picker, with its current time.
type zoneOption struct {
	Name  string
	Label string // "Europe/Berlin — 14:05 (UTC+01:00)"
}

func zoneOptions(now time.Time) []zoneOption {
	names := zoneNames()
	out := make([]zoneOption, 0, len(names))
	for _, n := range names {
		loc, err := loadZone(n)
		if err != nil {
			continue
		}
		t := now.In(loc)
		out = append(out, zoneOption{Name: n, Label: n + " — " + t.Format("15:04 (UTC-07:00)")})
	}
	return out
}
