package llm_test

import (
	"context"
	"strings"
	"testing"
)

const rruleCreate = `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=16;BYMINUTE=0","timezone":"America/New_York"},
	"startAt":"2026-12-01T05:00:00Z","targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"invoices"}}}`

func TestLLM_RRuleProposalIsValidatedAndRepairedByPart(t *testing.T) {
	bad := strings.Replace(rruleCreate, "FREQ=MONTHLY;", "FREQ=MONTHLY;BYWEEKNO=2;", 1)
	s, f, _ := setup(t, toolCall("schedule__create", bad), toolCall("schedule__create", rruleCreate))
	d, err := s.Select(context.Background(), input("post invoices on the last business day of each month at 4pm, starting December"))
	if err != nil || d.Function != "schedule.create" || !strings.Contains(string(d.Args), "BYSETPOS=-1") {
		t.Fatalf("decision = %+v, %v", d, err)
	}
	msgs := f.req(1)["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if c, _ := last["content"].(string); !strings.Contains(c, "schedule.rrule") || !strings.Contains(c, "BYWEEKNO is not supported") {
		t.Errorf("repair message = %v, want the part named", last)
	}
	// The tool schema offers rrule, dtstart and startAt; the prompt teaches them.
	var create map[string]any
	for _, tl := range f.req(0)["tools"].([]any) {
		fn := tl.(map[string]any)["function"].(map[string]any)
		if fn["name"] == "schedule__create" {
			create = fn["parameters"].(map[string]any)
		}
	}
	props := create["properties"].(map[string]any)
	sched := props["schedule"].(map[string]any)["properties"].(map[string]any)
	if _, ok := props["startAt"]; !ok || sched["rrule"] == nil || sched["dtstart"] == nil {
		t.Errorf("schedule.create tool lacks startAt, rrule or dtstart: %v", props)
	}
	sys := f.req(0)["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "BYSETPOS=-1") || !strings.Contains(sys, "EITHER matches") || strings.Contains(sys, "the first Monday of a\n  month, the last day") {
		t.Errorf("system prompt does not teach rrule:\n%s", sys)
	}
}
