#!/usr/bin/env python3
"""Generates rrule_conformance.json: expected fire instants of recurrence
rules, from python-dateutil (2.9) evaluated in floating (naive) time, each
wall time mapped to an instant by schedbot's DST rule: a wall time that does
not exist fires at the instant the clocks jump; one that occurs twice fires
once, at its first occurrence; wall times that land on the same instant fire
once. An UNTIL written in UTC (…Z) bounds the instants instead.

Run once, from this directory: python3 rrule_oracle.py > rrule_conformance.json
The Go tests only read the JSON.
"""
import json
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

UTC = timezone.utc
N = 8


def to_instant(w, z):
    a = w.replace(tzinfo=z, fold=0).astimezone(UTC)
    b = w.replace(tzinfo=z, fold=1).astimezone(UTC)

    def exists(u):
        return u.astimezone(z).replace(tzinfo=None) == w

    ea, eb = exists(a), exists(b)
    if ea and eb:
        return min(a, b)
    if ea:
        return a
    if eb:
        return b
    lo, hi = min(a, b), max(a, b)  # the jump lies between: find it to the second
    while hi - lo > timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        mid = mid.replace(microsecond=0)
        if mid.astimezone(z).replace(tzinfo=None) > w:
            hi = mid
        else:
            lo = mid
    return hi


def expected(rule, tz, dtstart, after, n=N):
    z = ZoneInfo(tz)
    body = rule[6:] if rule.upper().startswith("RRULE:") else rule
    parts = [p for p in body.upper().split(";") if p]
    until_utc = None
    kept = []
    for p in parts:
        if p.startswith("UNTIL=") and p.endswith("Z"):
            until_utc = datetime.strptime(p[6:], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        else:
            kept.append(p)
    rr = rrulestr(";".join(kept), dtstart=dtstart)
    out = []
    start_wall = after.astimezone(z).replace(tzinfo=None) - timedelta(days=1)
    for w in rr.xafter(start_wall, inc=True):
        t = to_instant(w, z)
        if until_utc is not None and t > until_utc:
            break
        if t <= after or (out and t == out[-1]):
            continue
        out.append(t)
        if len(out) == n:
            break
    return [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in out]


def transitions(tz, year):
    """(utc instant, wall before, wall after) of each offset change in year."""
    z = ZoneInfo(tz)
    t = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    out = []
    prev = t.astimezone(z).utcoffset()
    while t < end:
        nt = t + timedelta(hours=1)
        off = nt.astimezone(z).utcoffset()
        if off != prev:
            lo, hi = t, nt
            while hi - lo > timedelta(seconds=1):
                mid = lo + (hi - lo) / 2
                if mid.astimezone(z).utcoffset() == prev:
                    lo = mid
                else:
                    hi = mid
            before = (hi + prev).replace(tzinfo=None)
            after = (hi + off).replace(tzinfo=None)
            out.append((hi, before, after))
            prev = off
        t = nt
    return out


BYDAY = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

CALENDAR = [
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=10;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0",
    "FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=9;BYMINUTE=0",
    "FREQ=DAILY;INTERVAL=2;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=4;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;BYHOUR=12;BYMINUTE=0",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYMONTHDAY=31;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=5FR;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;BYHOUR=13;BYMINUTE=13",
    "FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9,17;BYMINUTE=0,30",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=SU;BYHOUR=8;BYMINUTE=0",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=MO;BYHOUR=8;BYMINUTE=0",
    "FREQ=DAILY;COUNT=5;BYHOUR=7;BYMINUTE=15",
    "FREQ=WEEKLY;BYDAY=TH;UNTIL=20270201T000000;BYHOUR=10;BYMINUTE=0",
    "FREQ=YEARLY;BYDAY=20MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3,10;BYHOUR=1;BYMINUTE=30",
    "FREQ=MONTHLY;BYMONTHDAY=1,15,-1;BYSETPOS=2;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;INTERVAL=2;BYMONTH=1;BYMONTHDAY=1;BYHOUR=0;BYMINUTE=0",
    "FREQ=WEEKLY",
    "FREQ=MONTHLY",
    "FREQ=YEARLY",
    "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0",
    "FREQ=WEEKLY;BYMONTH=12;BYDAY=SA,SU;BYHOUR=11;BYMINUTE=0",
    "FREQ=YEARLY;BYSETPOS=-1;BYDAY=MO,TU,WE,TH,FR;BYMONTH=12;BYHOUR=15;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=-2MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30",
    "FREQ=MONTHLY;INTERVAL=3;BYDAY=2WE;COUNT=6;BYHOUR=9;BYMINUTE=0",
    "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=18;BYMINUTE=0",
    "FREQ=DAILY;BYHOUR=9,12,18;BYSETPOS=2;BYMINUTE=0",
    "FREQ=MONTHLY;BYMONTHDAY=-3;BYHOUR=6;BYMINUTE=45",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=WEEKLY;INTERVAL=3;BYDAY=SA;COUNT=4;WKST=SU;BYHOUR=10;BYMINUTE=0",
    "FREQ=WEEKLY;BYDAY=FR;UNTIL=20270115T120000Z;BYHOUR=9;BYMINUTE=0",
    "RRULE:FREQ=MONTHLY;BYDAY=+1MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;BYDAY=1MO,-1MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYMONTH=1,4,7,10;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0",
    "FREQ=DAILY;INTERVAL=10;COUNT=20;BYHOUR=23;BYMINUTE=59",
    "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25;INTERVAL=3;BYHOUR=8;BYMINUTE=0",
    "FREQ=YEARLY;BYMONTH=1;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=MONTHLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
    "FREQ=DAILY;UNTIL=20270110;BYHOUR=9;BYMINUTE=0",
    "FREQ=DAILY;BYMONTHDAY=1,-1;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;BYMONTHDAY=15;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;BYMONTH=3",
    "FREQ=DAILY;BYHOUR=9",
    "freq=weekly;byday=sa,su;interval=2;byhour=10;byminute=5",
    "FREQ=MONTHLY;BYDAY=1MO,-1MO;BYSETPOS=-1;BYHOUR=9;BYMINUTE=0",
    "FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=-1;BYHOUR=9;BYMINUTE=0",
]
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
         "Pacific/Chatham", "Europe/London", "Australia/Lord_Howe", "America/Santiago"]
STARTS = [  # (dtstart wall, after as offset from dtstart)
    (datetime(2026, 11, 20, 14, 7), timedelta(0)),
    (datetime(2026, 1, 31, 9, 0), timedelta(days=40)),
    (datetime(2024, 2, 29, 9, 0), timedelta(days=800)),
    (datetime(2026, 6, 30, 8, 45, 30), timedelta(days=3)),
]


def case(rule, tz, dtstart, after, why):
    return {"name": why, "rrule": rule, "timezone": tz,
            "dtstart": dtstart.strftime("%Y-%m-%dT%H:%M:%S"),
            "after": after.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "want": expected(rule, tz, dtstart, after)}


def main():
    cases = []
    for i, rule in enumerate(CALENDAR):
        for j in range(3):
            tz = ZONES[(i + j) % len(ZONES)]
            ds, off = STARTS[(i + j) % len(STARTS)]
            after = (ds + off).replace(tzinfo=ZoneInfo(tz)).astimezone(UTC) - timedelta(minutes=1)
            cases.append(case(rule, tz, ds, after, f"calendar {i} in {tz}"))
    for tz in ZONES:
        for when, before, after_wall in transitions(tz, 2026):
            gap = after_wall > before  # clocks jump forward over [before, after_wall)
            lo, hi = (before, after_wall) if gap else (after_wall, before)
            mid = lo + (hi - lo) / 2
            day = lo.replace(hour=0, minute=0, second=0)
            ds = day - timedelta(days=9)
            a = (day - timedelta(days=3)).replace(tzinfo=ZoneInfo(tz)).astimezone(UTC)
            kind = "gap" if gap else "fold"
            wd = BYDAY[lo.weekday()]
            nth = (lo.day - 1) // 7 + 1
            rules = [
                f"FREQ=DAILY;BYHOUR={mid.hour};BYMINUTE={mid.minute}",
                f"FREQ=DAILY;BYHOUR={lo.hour};BYMINUTE={lo.minute}",
                f"FREQ=WEEKLY;BYDAY={wd};BYHOUR={mid.hour};BYMINUTE={mid.minute}",
                f"FREQ=MONTHLY;BYDAY={nth}{wd};BYHOUR={lo.hour};BYMINUTE=0,15,30,45",
                f"FREQ=DAILY;INTERVAL=2;BYHOUR={lo.hour},{(lo.hour + 1) % 24};BYMINUTE=0,30",
                f"FREQ=YEARLY;BYMONTH={lo.month};BYMONTHDAY={lo.day};BYHOUR={(hi - timedelta(minutes=1)).hour};BYMINUTE={(hi - timedelta(minutes=1)).minute}",
                f"FREQ=DAILY;COUNT=12;BYHOUR={mid.hour};BYMINUTE={mid.minute}",
            ]
            for k, rule in enumerate(rules):
                cases.append(case(rule, tz, ds, a, f"{kind} {lo:%Y-%m-%d %H:%M} in {tz} #{k}"))
    # dtstart itself is an occurrence only if it matches.
    cases.append(case("FREQ=WEEKLY;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "Europe/Berlin",
                      datetime(2026, 11, 24, 10, 0), datetime(2026, 11, 24, 8, 0, tzinfo=UTC), "dtstart matches"))
    cases.append(case("FREQ=WEEKLY;BYDAY=TU;BYHOUR=10;BYMINUTE=0", "Europe/Berlin",
                      datetime(2026, 11, 25, 10, 0), datetime(2026, 11, 20, 8, 0, tzinfo=UTC), "dtstart does not match"))
    print(json.dumps({"generator": "rrule_oracle.py (python-dateutil 2.9, zoneinfo)", "cases": cases}, indent=1))


if __name__ == "__main__":
    main()
