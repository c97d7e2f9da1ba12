package main

import (
	"path/filepath"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

// TestDoctor_ListsThenRepairsWhatDoesNotRead: doctor names every record of
// a damaged store file that does not read (a run, a job's status, a job's
// definition, index entries whose job is gone) with its bytes and fails;
// --repair rebuilds what it can (a status: the job disabled), removes the
// rest, says so and audits it; afterwards doctor and audit verify pass.
func TestDoctor_ListsThenRepairsWhatDoesNotRead(t *testing.T) {
	c := newCLI(t)
	var ids []string
	for _, name := range []string{"run owner", "bad status", "bad definition"} {
		out := c.mustRun("call", "schedule.create", "--args", strings.Replace(createArgs, "friday post", name, 1))
		ids = append(ids, jobIDRe.FindString(out))
	}
	if out := c.mustRun("doctor"); !strings.Contains(out, "default: every record reads") {
		t.Fatalf("doctor on a sound store:\n%s", out)
	}
	path := filepath.Join(c.data, "default", "automation", "automation.db")
	st, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := ids[0] + "@20261127T140000Z"
	st.Update(t.Context(), func(tx store.Tx) error {
		return tx.RunPut(&store.Run{ExecutionID: run, JobID: ids[0], Status: store.RunCompleted})
	})
	st.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error {
		tx.Bucket([]byte("runs")).Put([]byte(run), []byte(`{"status":`))
		tx.Bucket([]byte("job_status")).Put([]byte(ids[1]), []byte("garbage"))
		tx.Bucket([]byte("jobs")).Put([]byte(ids[2]), []byte(`{"jobId":7}`))
		tx.Bucket([]byte("jobs_next")).Put(append(make([]byte, 8), "GONE"...), nil)
		tx.Bucket([]byte("job_names")).Put([]byte("ghost"), []byte("GONE"))
		return nil
	})
	db.Close()

	out, _, code := c.run("doctor")
	for _, want := range []string{"default: 5 record(s) do not read", `run "` + run + `"`, `bytes: "{\"status\":"`,
		`job "` + ids[1] + `"`, `bytes: "garbage"`, `job "` + ids[2] + `"`, `next-run index "GONE": names a job that is not stored`,
		`name index "ghost"`} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("doctor with problems = exit %d, want 1", code)
	}
	out = c.mustRun("doctor", "--repair")
	for _, want := range []string{"5 record(s) did not read", "repaired: removed the record", "repaired: rebuilt its status: the job is disabled",
		"repaired: removed the job's records", "repaired: removed the entry"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor --repair output lacks %q:\n%s", want, out)
		}
	}
	if out := c.mustRun("doctor"); !strings.Contains(out, "default: every record reads") {
		t.Errorf("doctor after the repair:\n%s", out)
	}
	if out := c.mustRun("call", "schedule.show", "--args", `{"jobId":"`+ids[1]+`"}`); !strings.Contains(out, "disabled") {
		t.Errorf("the job whose status was rebuilt:\n%s", out)
	}
	if out := c.mustRun("audit", "--json"); strings.Count(out, `"action":"store.repaired"`) != 5 {
		t.Errorf("audit after the repair has %d store.repaired events, want 5:\n%s", strings.Count(out, "store.repaired"), out)
	}
	c.mustRun("audit", "verify")
}
