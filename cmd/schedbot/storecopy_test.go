package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// boltConfig writes a config whose one orchestrator keeps a bolt file under dir.
func boltConfig(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "schedbot.yaml")
	src := `orchestrators:
  default: {timezone: UTC, runtime_root: ./data}
channel_profiles:
  terminal: {channel: terminal, orchestrator_id: default}
server: {socket: ./schedbot.sock}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func storeCopy(t *testing.T, from, to string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	if err := Run(t.Context(), []string{"store", "copy", "--from-config", from, "--to-config", to}, &out, &errb); err != nil {
		return out.String(), errb.String() + err.Error(), exitCode(err)
	}
	return out.String(), errb.String(), 0
}

// contents is everything store copy moves, with the audit hashes left
// out: each store chains the events in its own encoding.
type contents struct {
	Jobs   []*store.Job
	Runs   []*store.Run
	Items  []*store.QueueItem
	Events []*store.AuditEvent
}

func snapshot(t *testing.T, cfgPath string) contents {
	t.Helper()
	cfg, err := loadConfig(commonFlags{config: cfgPath})
	if err != nil {
		t.Fatal(err)
	}
	st, err := app.OpenStore(cfg.Orchestrators["default"])
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var c contents
	err = st.View(t.Context(), func(tx store.Tx) error {
		page, err := tx.JobList(&store.JobListParams{States: store.JobStates, Limit: store.MaxListLimit})
		if err != nil {
			return err
		}
		c.Jobs = page.Jobs
		for _, j := range c.Jobs {
			runs, err := tx.RunList(j.JobID, 100)
			if err != nil {
				return err
			}
			c.Runs = append(c.Runs, runs...)
		}
		for _, q := range store.QueueNames {
			items, err := tx.QueueList(&store.QueueListParams{Queue: q, Limit: store.MaxListLimit})
			if err != nil {
				return err
			}
			c.Items = append(c.Items, items...)
		}
		if c.Events, err = tx.AuditList(nil); err != nil {
			return err
		}
		for _, ev := range c.Events {
			ev.PrevHash, ev.Hash = "", ""
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStoreCopy_BoltToPostgresAndBack: jobs in every state, their runs,
// queue items and the audit log arrive in postgres as they were in bolt,
// with a chain that verifies, and come back to a new bolt file the same;
// a target that is not empty, or the source itself, is refused.
func TestStoreCopy_BoltToPostgresAndBack(t *testing.T) {
	t.Setenv("SCHEDBOT_DATABASE_URL", pgtest.DSN(t))
	c := newCLI(t)
	boltCfg, pgCfg, back := boltConfig(t, t.TempDir()), pgConfig(t, t.TempDir()), boltConfig(t, t.TempDir())
	var ids []string
	for _, name := range []string{"one", "two", "three"} {
		out := c.mustRun("call", "schedule.create", "--config", boltCfg, "--args", strings.Replace(createArgs, "friday post", name, 1))
		ids = append(ids, jobIDRe.FindString(out))
	}
	c.mustRun("call", "schedule.pause", "--config", boltCfg, "--args", `{"jobId":"`+ids[1]+`"}`)
	c.mustRun("call", "schedule.run_now", "--config", boltCfg, "--args", `{"jobId":"`+ids[0]+`"}`)
	c.mustRun("call", "schedule.delete", "--config", boltCfg, "--args", `{"jobId":"`+ids[2]+`"}`)
	want := snapshot(t, boltCfg)
	if len(want.Jobs) != 3 || len(want.Runs) == 0 || len(want.Items) == 0 || len(want.Events) < 6 {
		t.Fatalf("source holds %d jobs, %d runs, %d items, %d events; want some of each", len(want.Jobs), len(want.Runs), len(want.Items), len(want.Events))
	}

	out, errs, code := storeCopy(t, boltCfg, pgCfg)
	if code != 0 {
		t.Fatalf("store copy: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "default: copied 3 jobs") || !strings.Contains(out, "audit chain verified") {
		t.Errorf("store copy said %q", out)
	}
	if d := cmp.Diff(want, snapshot(t, pgCfg)); d != "" {
		t.Errorf("postgres after copy (-bolt +postgres):\n%s", d)
	}
	if out := c.mustRun("audit", "verify", "--config", pgCfg); !strings.Contains(out, "hash chain intact") {
		t.Errorf("audit verify on postgres: %s", out)
	}

	// Again into the same database: refused, nothing changes.
	if _, errs, code := storeCopy(t, boltCfg, pgCfg); code != 1 || !strings.Contains(errs, "not empty") {
		t.Errorf("copy into a full store: exit %d, %s", code, errs)
	}
	if _, errs, code := storeCopy(t, boltCfg, boltCfg); code != 1 || !strings.Contains(errs, "same store") {
		t.Errorf("copy onto itself: exit %d, %s", code, errs)
	}
	if d := cmp.Diff(want, snapshot(t, pgCfg)); d != "" {
		t.Errorf("postgres after the refused copy (-before +after):\n%s", d)
	}

	if _, errs, code := storeCopy(t, pgCfg, back); code != 0 {
		t.Fatalf("store copy back: exit %d: %s", code, errs)
	}
	if d := cmp.Diff(want, snapshot(t, back)); d != "" {
		t.Errorf("bolt after the copy back (-first bolt +second bolt):\n%s", d)
	}
	if out := c.mustRun("audit", "verify", "--config", back); !strings.Contains(out, "hash chain intact") {
		t.Errorf("audit verify after the copy back: %s", out)
	}
}
