package conversation_test

import (
	"testing"
	"time"
)

// "every biweekly monday" answered "every other monday" says "every" and
// the day once; a quoted "biweekly" is the message, never the word asked
// about.
func TestConversation_BiweeklyAnsweredInPlace(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC) // Fri 20 Nov, 10:00 in New York
	c := conv(e, &now)
	converse(t, c, []step{
		{`post "weekly" in #team every biweekly monday at 9am`, "“biweekly” can mean"},
		{"every other monday", "post “weekly” in #team every 2 weeks on Monday at 9:00 AM"},
		{`post "biweekly" in #ops every biweekly monday at 9am`, "“biweekly” can mean"},
		{"every monday and thursday", "post “biweekly” in #ops every Monday and Thursday at 9:00 AM"},
		{`post "sync" in #eng every biweekly monday at 9am`, "“biweekly” can mean"},
		{"every other tuesday", "post “sync” in #eng every 2 weeks on Tuesday at 9:00 AM"}, // the day answered takes the asked one's place
	})
}

// "in a bit" is asked about, out of the message, and the while answered
// takes its place.
func TestConversation_InABitAskedAbout(t *testing.T) {
	e := newEnv(t)
	now := secondsIn() // the functions check runAt against the real clock
	c := conv(e, &now)
	converse(t, c, []step{
		{"Remind me to water the plants in a bit please", "When should I post “water the plants”? “in a bit” could be any time"},
		{"20 minutes", "post “water the plants” in a direct message to <@UANA> once on " + now.Add(20*time.Minute).In(mustZone(t, "America/New_York")).Format("Mon 2 Jan 2006 at 3:04 PM")},
	})
}

// A reminder of something due "by 4pm" asks when to remind, and the time
// answered takes the place of "by 4pm", the day kept.
func TestConversation_DueByAsksWhenToRemind(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	day := now.In(mustZone(t, "America/New_York")).AddDate(0, 0, 1).Format("Mon 2 Jan 2006")
	converse(t, c, []step{
		{"remind me to submit the report by 4pm tomorrow", "When should I post “submit the report”? It is due “by 4pm tomorrow”"},
		{"at 3pm", "“submit the report” in a direct message to <@UANA> once on " + day + " at 3:00 PM"},
	})
}

// "rmd me" is asked about, spelled out, and yes makes it; "2 call" is
// "to call" and "2moro mornin" tomorrow morning, which asks what time.
func TestConversation_TextSpeak(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{"rmd me tmrw 10am dentist", "Did you mean “remind me tmrw 10am dentist”? (yes or no)"},
		{"yes", "“dentist” in a direct message to <@UANA> once on"},
		{"pls remind me 2 call dr 2moro mornin", "What time exactly"},
		{"9am", "“call dr” in a direct message to <@UANA> once on"},
	})
}

// An answer with more words than the answer is taken: the question said
// back first, an apology, a reason after a comma, "oh wait, it's
// actually …".
func TestConversation_AnswersWithMoreWords(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{"remind me at 5 to leave", "Is that 5 in the morning or in the afternoon?"},
		{"am or pm? pm obviously", "at 5:00 PM"},
		{"remind me to call mom tomorrow at 2", "Say 2am or 2pm"},
		{"2pm sorry", "at 2:00 PM"},
		{"remind me at 3 to pick up kids", "Say 3am or 3pm"},
		{"3pm please, they get out at 3:15", "at 3:00 PM"},
		{"remind me at 3 to pick up kids", "Say 3am or 3pm"},
		{"oh wait, it's actually at 4pm", "at 4:00 PM"},
		{"remind me about the meeting", "When should I post “the meeting”?"},
		{"tomorrow at 10, it's the budget meeting with finance", "“the meeting” in a direct message to <@UANA> once on"},
	})
}

// A question asked back is no message to post; a new request after
// "never mind" drops the question and its closing "instead".
func TestConversation_QuestionBackAndNeverMind(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{"remind me tomorrow", "What should I post?"},
		{"why do you need that?", "I'm still asking"},
		{"remind me to call the dentist", "When should I post “call the dentist”?"},
		{"ugh never mind, remind me at 4pm to call the school instead", "“call the school” in a direct message"},
	})
}

// An answer to "It is due by 4pm tomorrow" that names a day takes the due
// day's place; a bare time before the deadline is on its side of noon.
func TestConversation_DueByAnsweredWithADay(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	day := now.In(mustZone(t, "America/New_York")).AddDate(0, 0, 1).Format("Mon 2 Jan 2006")
	converse(t, c, []step{
		{"remind me to submit the report by 4pm tomorrow", "It is due “by 4pm tomorrow”"},
		{"tomorrow at 9am", "once on " + day + " at 9:00 AM"},
		{"remind me to submit the report by 4pm tomorrow", "It is due “by 4pm tomorrow”"},
		{"3:30", "once on " + day + " at 3:30 PM"},
	})
}

// A change of jobs asked for while a question waits is answered, why not
// included, and the question still waits for its answer.
func TestConversation_ManageAskedWhileAsking(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{"remind me to call the landlord", "When should I post “call the landlord”?"},
		{"delete all my reminders", "I can't change many schedules at once"},
		{"pause the standup", "I'm still asking about “remind me to call the landlord”"},
		{"tomorrow at 5pm", "“call the landlord” in a direct message to <@UANA> once on"},
	})
}

// What the answer rules must leave alone: a correction after the comma
// is no reason to drop, a message may ask its readers or open with a
// verb of managing jobs, and a bare time before a noon deadline is in
// the morning.
func TestConversation_AnswersLeftAlone(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	day := now.In(mustZone(t, "America/New_York")).AddDate(0, 0, 1).Format("Mon 2 Jan 2006")
	converse(t, c, []step{
		{"remind me to pick up the kids", "When should I post “pick up the kids”?"},
		{"3pm, i mean 4pm", "I'm still asking"},
		{"cancel", "dropped"},
		{"post in #team tomorrow at 9am", "What should I post"},
		{"are you coming to lunch today?", "post “are you coming to lunch today?” in #team once on"},
		{"post in #team tomorrow at 9am", "What should I post"},
		{"delete the old branches please", "post “delete the old branches please” in #team once on"},
		{"remind me to submit the report by 12pm tomorrow", "It is due “by 12pm tomorrow”"},
		{"11", "once on " + day + " at 11:00 AM"},
	})
}

// A calendar line is read at its start: pasted with its title, what to
// post then is asked; pasted as the answer to what or when to post, it is
// the when (NL_SPEC 32).
func TestConversation_CalendarLine(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	dentist := time.Date(now.Year()+1, 12, 3, 0, 0, 0, 0, time.UTC)
	sync := time.Date(now.Year()+1, 12, 8, 0, 0, 0, 0, time.UTC)
	line := sync.Format("Monday, January 2, 2006") + " · 10:00 – 10:30am"
	converse(t, c, []step{
		{"Dentist appointment " + dentist.Format("Mon, Jan 2, 2006") + " 2:30 PM – 3:00 PM GMT", "What should I post on " + dentist.Format("Mon 2 Jan 2006") + " at 2:30 PM?"},
		{"Dentist appointment", "post “Dentist appointment” in <#C0TEAM> once on " + dentist.Format("Mon 2 Jan 2006") + " at 2:30 PM (UTC)"},
		{"post Team Sync", "When should I post “Team Sync”?"},
		{line, "“Team Sync” in <#C0TEAM> once on " + sync.Format("Mon 2 Jan 2006") + " at 10:00 AM"},
		{"Team Sync", "What would you like me to schedule?"},
		{line, "What should I post on " + sync.Format("Mon 2 Jan 2006") + " at 10:00 AM?"},
	})
}

// "post in #eng" keeps the channel for the answers that follow.
func TestConversation_PostInChannelKept(t *testing.T) {
	e := newEnv(t)
	now := secondsIn()
	c := conv(e, &now)
	converse(t, c, []step{
		{"post in #eng", "What should I post in #eng, and when?"},
		{"hello every friday at 9am", "“hello” in #eng every Friday at 9:00 AM"},
	})
}

// Why, said before a skip of the job in context, is no word of the skip.
func TestConversation_ReasonBeforeSkip(t *testing.T) {
	e := newEnv(t)
	now := secondsIn() // a skip's run must be to come
	c := conv(e, &now)
	steps := []step{
		{"remind me to take my vitamins every day at 9pm", "every day at 9:00 PM"},
		{"I already took them, skip tomorrow", "Skipped"},
	}
	if now.In(mustZone(t, "America/New_York")).Hour() < 20 {
		steps = append(steps, step{"I took them already, skip tonight", "Skipped"})
	}
	converse(t, c, steps)
}
