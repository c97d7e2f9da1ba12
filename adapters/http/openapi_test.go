package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi.golden.json")

// TestOpenAPI_ValidatesAgainstTheOpenAPI31Schema runs the document through
// the OpenAPI 3.1 schema (testdata/oas-3.1-schema.json, the OpenAPI
// Initiative's 2022-10-07 release), and each of its schemas through JSON
// Schema 2020-12's meta-schema.
func TestOpenAPI_ValidatesAgainstTheOpenAPI31Schema(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/api/v1/openapi.json", "", "") // no token needed
	e.requireCode(r, http.StatusOK)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.Open(filepath.Join("testdata", "oas-3.1-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer meta.Close()
	metaDoc, err := jsonschema.UnmarshalJSON(meta)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://spec.openapis.org/oas/3.1/schema/2022-10-07", metaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://spec.openapis.org/oas/3.1/schema/2022-10-07")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("the OpenAPI document does not validate: %v", err)
	}
	// A document that breaks the schema is caught (the validator works).
	var broken map[string]any
	json.Unmarshal(r.body, &broken)
	broken["paths"].(map[string]any)["/api/v1/schedules"].(map[string]any)["get"].(map[string]any)["responses"] = "none"
	if err := sch.Validate(broken); err == nil {
		t.Error("a document with responses \"none\" validates")
	}

	schemas := doc.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any)
	for name, s := range schemas {
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem://"+name, s); err != nil {
			t.Fatalf("schema %s: %v", name, err)
		}
		// A $ref into the document does not resolve alone; the rest must compile.
		if _, err := c.Compile("mem://" + name); err != nil && !strings.Contains(err.Error(), "components/schemas") {
			t.Errorf("schema %s is not JSON Schema 2020-12: %v", name, err)
		}
	}
}

// TestOpenAPI_BuiltFromTheFunctionsSchemas: the request bodies are the
// functions' own schemas, and the document is the golden file: a schema
// changed in functions/ fails here until the document is looked at again
// (go test ./adapters/http -update).
func TestOpenAPI_BuiltFromTheFunctionsSchemas(t *testing.T) {
	reg := functions.NewRegistry(functions.Deps{Orchestrator: functions.Orchestrator{ID: "x", Functions: []string{"*"}}})
	b, err := httpapi.OpenAPI(reg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Parameters []struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"schedule.create", "schedule.update", "schedule.list"} {
		if !jsonEqual(t, doc.Components.Schemas[fn], reg.Schema(fn)) {
			t.Errorf("components.schemas[%s] is not the function's schema", fn)
		}
	}
	if ref := doc.Paths["/api/v1/schedules"]["post"].RequestBody.Content["application/json"].Schema.Ref; ref != "#/components/schemas/schedule.create" {
		t.Errorf("POST /schedules body = %q", ref)
	}
	var list struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(reg.Schema("schedule.list"), &list)
	for _, p := range doc.Paths["/api/v1/schedules"]["get"].Parameters {
		if p.Name == "state" && !jsonEqual(t, p.Schema, list.Properties["state"]) {
			t.Errorf("the state parameter's schema is not schedule.list's: %s", p.Schema)
		}
	}
	var patch struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	json.Unmarshal(doc.Components.Schemas["SchedulePatch"], &patch)
	if _, ok := patch.Properties["jobId"]; ok || len(patch.Required) > 0 || patch.Properties["schedule"] == nil {
		t.Errorf("SchedulePatch is not update's arguments less jobId: %s", doc.Components.Schemas["SchedulePatch"])
	}

	golden := filepath.Join("testdata", "openapi.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("the OpenAPI document drifted from %s (a function's schema changed?); look, then go test ./adapters/http -update", golden)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestCalendarICS_RRuleWhereExactExpandedElseFeedTokenInQuery(t *testing.T) {
	e := newEnv(t)
	alice := e.mustToken("team", "UALICE")
	feed := e.mustToken("team", "UFEED", func(tk *store.Token) { tk.Feed = true })
	weekly := e.mustCreate(alice, createBody("0 9 * * 5", "standup; notes, and more", "C0111"))
	nightly := e.mustCreate(alice, createBody("30 2 * * *", "night job", "C0111"))
	e.mustCreate(alice, `{"scheduleType":"rrule","schedule":{"rrule":"FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0","timezone":"Europe/Berlin"},
		"targetAction":{"type":"command_invoke","functionId":"message.post","functionArgs":{"text":"month end"}}}`)

	r := e.do("GET", "/api/v1/calendar.ics?token="+feed, "", "")
	e.requireCode(r, http.StatusOK)
	if ct := r.hdr.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
		t.Errorf("Content-Type = %q", ct)
	}
	ics := string(r.body)
	for _, want := range []string{
		"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n",
		"UID:" + weekly + "@schedbot\r\n",
		"DTSTART;TZID=America/New_York:20270312T090000\r\nRRULE:FREQ=WEEKLY;BYDAY=FR;BYHOUR=9;BYMINUTE=0\r\n",
		`SUMMARY:standup\; notes\, and more`,
		"RRULE:FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0\r\n",
		"DTSTART;TZID=Europe/Berlin:",
		// 02:30 on the day New York springs forward: expanded, at 03:00
		"UID:" + nightly + "-20270314T070000Z@schedbot\r\nDTSTAMP:20270310T120000Z\r\nDTSTART;TZID=America/New_York:20270314T030000\r\n",
		"BEGIN:VTIMEZONE\r\nTZID:America/New_York\r\n",
		"BEGIN:DAYLIGHT\r\nDTSTART:20270314T020000\r\nTZOFFSETFROM:-0500\r\nTZOFFSETTO:-0400\r\nTZNAME:EDT\r\n",
		"TZID:Europe/Berlin\r\n",
		"END:VCALENDAR\r\n",
	} {
		if !strings.Contains(ics, want) {
			t.Errorf("feed lacks %q", want)
		}
	}
	if strings.Contains(ics, "UID:"+nightly+"@schedbot") {
		t.Error("the nightly job across a DST gap got an RRULE, which calendar apps would put at 03:30")
	}
	for _, line := range strings.Split(ics, "\r\n") {
		if len(line) > 75 {
			t.Errorf("line longer than 75 octets: %q", line)
		}
	}
	e.requireCode(e.do("GET", "/api/v1/calendar.ics", alice, ""), http.StatusOK) // a bearer token reads it too
	e.requireCode(e.do("GET", "/api/v1/calendar.ics?token="+alice, "", ""), http.StatusUnauthorized)
	e.requireCode(e.do("GET", "/api/v1/calendar.ics", "", ""), http.StatusUnauthorized)
	e.requireCode(e.do("GET", "/api/v1/schedules", feed, ""), http.StatusUnauthorized)
}
