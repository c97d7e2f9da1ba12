package rules

import (
	"fmt"
	"slices"
	"time"

	"github.com/schedbot/schedbot/scheduler"
	"github.com/schedbot/schedbot/store"
)

// Compiling what the phrases said to one schedule: once, an offset or a
// recurrence (compile_recurring.go), then its bounds (bounds.go).

// compiled is a when turned into a schedule.
type compiled struct {
	typ     string         // cron, interval, once, rrule
	sched   map[string]any // the create call's "schedule"
	startAt time.Time
	endAt   time.Time
	// count is "3 times": create passes it on as a count of runs, which
	// survives edits, and not countEnd, the end it gives today (endAt is
	// countEnd when the count bounds the job first).
	count    int
	countEnd time.Time
}

// outcome of compiling: exactly one of a schedule, a problem (a question
// about the time, or a refusal) or none.
type outcome struct {
	c    *compiled
	why  problem
	none bool // the text said nothing about time
}

func ask(format string, a ...any) outcome { return outcome{why: askTime(fmt.Sprintf(format, a...))} }

func refuse(format string, a ...any) outcome { return outcome{why: refusal(fmt.Sprintf(format, a...))} }

// compile turns what the phrases said into one schedule, in loc.
func compile(w when, now time.Time, zone string) outcome {
	loc := now.Location()
	if w.vague == "next week" && len(w.dows) == 1 && w.wdOnce && !w.rec {
		// "next week on Tuesday", "Monday next week": next Tuesday, next
		// Monday (decision 10)
		w.vague, w.vagueQ, w.wdNext = "", "", true
	}
	if (w.vague == "next month" || w.vague == "this month") && w.domOnce && len(w.doms) == 1 && w.doms[0] > 0 && !w.rec && w.date == nil && !w.hasDay && len(w.dows) == 0 {
		// "next month on the 1st": that day of that month
		first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
		if w.vague == "next month" {
			first = first.AddDate(0, 1, 0)
		}
		if w.doms[0] > daysIn(int(first.Month()), first.Year()) {
			return refuse("%s has no day %d.", first.Month(), w.doms[0])
		}
		w.date = &ymd{y: first.Year(), m: int(first.Month()), d: w.doms[0]}
		w.vague, w.vagueQ, w.domOnce, w.doms, w.dateAny = "", "", false, nil, true
	}
	if w.vague != "" {
		if w.vagueQ != "" {
			return ask("%s", w.vagueQ)
		}
		switch w.vague {
		case "eod", "eob", "cob", "end of day", "end of the day", "end of business", "close of business":
			return ask("What time do you mean by “%s”? For example 5pm.", w.vague)
		case "lunch", "lunchtime":
			return ask("What time do you mean by “%s”? For example 12:30pm.", w.vague)
		}
		return ask("What time exactly (“%s” could be several hours)? For example 3pm.", w.vague)
	}
	// times of day
	var hm [][2]int
	for _, c := range w.clocks {
		h, amb := c.resolved(w.part)
		if amb {
			return ask("Is that %d in the morning or in the afternoon? Say %dam or %dpm.", c.h, c.h, c.h)
		}
		if !slices.Contains(hm, [2]int{h, c.m}) {
			hm = append(hm, [2]int{h, c.m})
		}
	}
	slices.SortFunc(hm, func(a, b [2]int) int { return (a[0]*60 + a[1]) - (b[0]*60 + b[1]) })
	if len(hm) == 0 && w.part != "" && len(w.mins) == 0 {
		return ask("What time exactly (“%s” could be several hours)? For example 3pm.", w.part)
	}
	if w.hasRel {
		if w.rec || len(w.mins) > 0 || w.window != nil {
			return ask("Should that repeat, or happen once? Say “in 2 hours” for once, or “every 2 hours”.")
		}
		return compileRelative(w, hm, now)
	}
	if !w.rec && !w.multiOnce {
		if len(w.dows) > 1 {
			return ask("Every week on those days, or just once? Say “every %s” to repeat.", dayList(w.dows))
		}
		return compileOnce(w, hm, now)
	}
	return compileRecurring(w, hm, now, zone, loc)
}

func once(t, now time.Time, w when) outcome {
	if !t.After(now) {
		return ask("%s has already passed. When should it be instead?", t.Format("Mon 2 Jan at 3:04 PM"))
	}
	if t.After(now.AddDate(10, 0, 0)) {
		return refuse("That is more than 10 years away; I schedule up to 10 years ahead.")
	}
	if w.untilClock {
		return askOften(w.until.at)
	}
	if w.until != nil || w.span != 0 || w.count > 1 || w.start != nil || w.noEnd {
		return ask("A one-time post runs once; did you mean it to repeat? Say “every day …” for that.")
	}
	return outcome{c: &compiled{typ: store.ScheduleOnce, sched: map[string]any{"runAt": t.UTC().Format(time.RFC3339), "timezone": now.Location().String()}}}
}

// askOften asks how often of a job given only an end within the day
// ("remind me until 5pm to stretch").
func askOften(end time.Time) outcome {
	return ask("How often until %s? For example “every hour” or “every 30 minutes”.", end.Format("3:04 PM"))
}

func compileOnce(w when, hm [][2]int, now time.Time) outcome {
	loc := now.Location()
	if len(w.mins) > 0 || w.onHour || w.window != nil {
		return ask("How often? For example “every hour at quarter past”.")
	}
	dated := w.date != nil || w.hasDay || len(w.dows) > 0 || w.domOnce
	if len(hm) > 0 && !dated && len(w.months) > 0 && len(w.doms) == 0 && !w.multiOnce {
		// "in April at 9am", "during January and July at 9am": which days?
		return ask("Which days in %s? Say “every day in %s” or a date such as “on %s 1st”.", monthList(w.months), monthList(w.months), time.Month(w.months[0]))
	}
	if len(hm) == 0 {
		if w.untilClock {
			return askOften(w.until.at)
		}
		if dated {
			return ask("What time on that day? For example 9am.")
		}
		if len(w.months) > 0 || w.until != nil || w.start != nil || w.count > 0 || w.span > 0 || w.zone != "" || len(w.exDows) > 0 {
			return ask("When exactly? For example “every day at 9am” or “tomorrow at 3pm”.")
		}
		return outcome{none: true}
	}
	if len(hm) > 1 {
		return refuse("That names more than one time; a one-time job runs once. Ask for each separately, or say “every day at …”.")
	}
	h, m := hm[0][0], hm[0][1]
	// days are counted at noon: a zone may skip midnight (Santiago), and
	// time.Date then moves it to the day before
	today := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, loc)
	at := func(d time.Time) time.Time {
		return scheduler.WallInstant(d.Year(), d.Month(), d.Day(), h, m, loc)
	}
	if day := midnightDay(w, now); day == "tomorrow" {
		return outcome{why: askTimeFor([]tok{*w.midnight}, "Midnight tonight (the start of tomorrow), or at the end of tomorrow? "+
			"Say “12am” for tonight or “11:59pm” for tomorrow night.")}
	} else if day != "" {
		return outcome{why: askTimeFor([]tok{*w.midnight}, fmt.Sprintf("Midnight tonight (the end of %s), or at the start of next %s, "+
			"a week away? Say “11:59pm” for tonight or “12am” for next %s.", day, day, day))}
	}
	var t time.Time
	switch {
	case w.date != nil:
		d := *w.date
		if len(w.dows) > 0 && int(time.Date(orYear(d.y, now.Year()), time.Month(d.m), d.d, 12, 0, 0, 0, loc).Weekday()) != w.dows[0] && d.y != 0 {
			return ask("%s is not a %s. Which did you mean?", time.Date(d.y, time.Month(d.m), d.d, 12, 0, 0, 0, loc).Format("Jan 2, 2006"), dayNames[w.dows[0]])
		}
		y := d.y
		if y == 0 {
			y = now.Year()
			for !at(time.Date(y, time.Month(d.m), d.d, 12, 0, 0, 0, loc)).After(now) || time.Date(y, time.Month(d.m), d.d, 12, 0, 0, 0, loc).Day() != d.d {
				y++
				if y > now.Year()+8 {
					return refuse("%s", impossibleDate(d))
				}
			}
			if len(w.dows) > 0 && int(time.Date(y, time.Month(d.m), d.d, 12, 0, 0, 0, loc).Weekday()) != w.dows[0] {
				return ask("%s is not a %s. Which did you mean?", time.Date(y, time.Month(d.m), d.d, 12, 0, 0, 0, loc).Format("Jan 2, 2006"), dayNames[w.dows[0]])
			}
		}
		if d.d > daysIn(d.m, y) {
			return refuse("%s", impossibleDate(ymd{y: y, m: d.m, d: d.d}))
		}
		t = at(time.Date(y, time.Month(d.m), d.d, 12, 0, 0, 0, loc))
	case w.hasDay:
		if len(w.dows) > 0 && int(today.AddDate(0, 0, w.dayRel).Weekday()) != w.dows[0] {
			return ask("Which day: %s or %s?", map[int]string{0: "today", 1: "tomorrow", 2: "the day after tomorrow"}[w.dayRel], dayNames[w.dows[0]])
		}
		t = at(today.AddDate(0, 0, w.dayRel))
		if w.part == "tonight" && !t.After(now) && h == 0 {
			t = at(today.AddDate(0, 0, w.dayRel+1)) // midnight tonight
		}
	case len(w.dows) == 1 && w.domOnce && len(w.doms) == 1 && !w.wdNext && nextDom(w.doms[0], h, m, now).Weekday() == time.Weekday(w.dows[0]):
		// "on monday the 7th" when the next 7th is a Monday; another
		// weekday is a slip, which verify asks about
		t = nextDom(w.doms[0], h, m, now)
	case len(w.dows) == 1:
		wd := w.dows[0]
		ahead := (wd - int(now.Weekday()) + 7) % 7
		if w.wdNext {
			daysToMonday := (8 - int(now.Weekday())) % 7
			if daysToMonday == 0 {
				daysToMonday = 7
			}
			ahead = daysToMonday + (wd+6)%7
		}
		t = at(today.AddDate(0, 0, ahead))
		if !t.After(now) && !w.wdNext {
			t = at(today.AddDate(0, 0, ahead+7)) // "on Friday" said on a Friday after the time
		}
	case w.domOnce:
		if t = nextDom(w.doms[0], h, m, now); t.IsZero() {
			return refuse("There is no day %d in a month.", w.doms[0])
		}
	default:
		t = at(today)
		if !t.After(now) {
			t = at(today.AddDate(0, 0, 1)) // decision 9: the next time it comes round
		}
	}
	if !t.After(now) {
		// Said as the message wrote it: at a time the clocks skip, t is
		// the jump, not the time named.
		return ask("%s at %s has already passed. When should it be instead?", t.Format("Mon 2 Jan"), clockText([2]int{h, m}))
	}
	return once(t, now, w)
}

// nextDom is the next day d of a month at h:m after now; zero when no
// month has one.
func nextDom(d, h, m int, now time.Time) time.Time {
	for k := 0; k <= 14; k++ {
		c := scheduler.WallInstant(now.Year(), now.Month()+time.Month(k), d, h, m, now.Location())
		if c.Day() == d && c.After(now) {
			return c
		}
	}
	return time.Time{}
}

func orYear(y, def int) int {
	if y == 0 {
		return def
	}
	return y
}

// specOf is the scheduler's view of a compiled schedule, with interval
// jobs anchored at now as the create handler anchors them.
func specOf(c *compiled, now time.Time) (*scheduler.Spec, error) {
	s := store.Schedule{}
	switch c.typ {
	case store.ScheduleCron:
		s.Cron, s.Timezone = c.sched["cron"].(string), c.sched["timezone"].(string)
	case store.ScheduleRRule:
		s.RRule, s.Timezone = c.sched["rrule"].(string), c.sched["timezone"].(string)
		if d, ok := c.sched["dtstart"].(string); ok {
			s.Dtstart = d
		}
	case store.ScheduleInterval:
		s.EverySeconds = int64(c.sched["everySeconds"].(int))
		s.StartAt = now.UTC().Truncate(time.Second)
		if v, ok := c.sched["startAt"].(string); ok {
			s.StartAt, _ = time.Parse(time.RFC3339, v)
		} else if !c.startAt.IsZero() {
			s.StartAt = c.startAt.UTC()
		}
	case store.ScheduleOnce:
		s.RunAt, _ = time.Parse(time.RFC3339, c.sched["runAt"].(string))
		s.Timezone, _ = c.sched["timezone"].(string)
	}
	sp, err := scheduler.NewSpec(c.typ, s, c.endAt)
	if err != nil {
		return nil, err
	}
	sp.NotBefore = c.startAt
	return sp, nil
}

// midnightDay names the day of a one-time "midnight" whose reading as
// 00:00 (decision 2) is likely not what was meant: "tomorrow at midnight"
// (00:00 tomorrow is tonight) and today's weekday ("on Friday at
// midnight" said on a Friday, a week away). "" otherwise: "on Jan 1 at
// midnight" is the start of Jan 1.
func midnightDay(w when, now time.Time) string {
	switch {
	case w.midnight == nil || w.date != nil:
		return ""
	case w.hasDay && w.dayRel == 1:
		return "tomorrow"
	case len(w.dows) == 1 && !w.hasDay && !w.wdNext && w.dows[0] == int(now.Weekday()):
		return capitalize(dayNames[w.dows[0]])
	}
	return ""
}
