package main

import (
	bin "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
)

var headRe = regexp.MustCompile(`head (\d+) ([0-9a-f]{64})`)

var jobsMade int // names jobs apart across createJobs calls

// createJobs makes n jobs through the CLI: n audit records.
func (c *cli) createJobs(n int) {
	c.t.Helper()
	for range n {
		jobsMade++
		c.mustRun("call", "schedule.create", "--args", strings.Replace(createArgs, "friday post", fmt.Sprint("post ", jobsMade), 1))
	}
}

// rewriteStoreAudit rewrites the default orchestrator's audit log the way
// someone with the file but not the key can: edit record 2, delete
// record 3, renumber, re-chain and re-hash the rest and the head.
func rewriteStoreAudit(t *testing.T, path string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		var evs []*store.AuditEvent
		var keys [][]byte
		b.ForEach(func(k, v []byte) error {
			var ev store.AuditEvent
			json.Unmarshal(v[32:], &ev)
			evs, keys = append(evs, &ev), append(keys, slices.Clone(k))
			return nil
		})
		for _, k := range keys {
			b.Delete(k)
		}
		evs[1].Detail = "nothing to see"
		evs = append(evs[:2], evs[3:]...)
		var prev []byte
		for i, ev := range evs {
			ev.Seq, ev.PrevHash, ev.Hash = uint64(i+1), hex.EncodeToString(prev), ""
			body, _ := bolt.Encode(ev)
			hash := store.AuditHash(prev, body)
			k := bin.BigEndian.AppendUint64(nil, ev.Seq)
			b.Put(k, append(hash, body...))
			tx.Bucket([]byte("meta")).Put([]byte("audit_head"), append(k, hash...))
			prev = hash
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuditVerify_KeyAndPublishedHead: the rewrite attack (edit a record,
// delete another, re-hash tail and head) passes `audit verify` without an
// audit key and fails it with one; either way a head published before the
// rewrite is no longer in the chain, and `--head` says so.
func TestAuditVerify_KeyAndPublishedHead(t *testing.T) {
	for _, key := range []string{"", "0123456789abcdef0123456789abcdef"} {
		t.Run("key="+key, func(t *testing.T) {
			c := newCLI(t)
			t.Setenv("SCHEDBOT_AUDIT_KEY", key)
			c.createJobs(4)
			out := c.mustRun("audit", "verify")
			m := headRe.FindStringSubmatch(out)
			if m == nil || m[1] != "4" {
				t.Fatalf("verify:\n%s\nwant the head (4) and its hash", out)
			}
			if key != "" && !strings.Contains(out, "every record's MAC intact") {
				t.Errorf("verify with a key:\n%s\nwant it to say the MACs were checked", out)
			}
			published := m[2]
			if out := c.mustRun("audit", "verify", "--head", published); !strings.Contains(out, "is record 4") {
				t.Errorf("verify --head (the current head):\n%s", out)
			}
			out, _, code := c.run("audit", "verify", "--head", strings.Repeat("0", 64))
			if code != 1 || !strings.Contains(out, "is not in the chain") {
				t.Errorf("verify --head (a head never published) = exit %d\n%s\nwant it to fail", code, out)
			}
			if _, errs, code := c.run("audit", "verify", "--head", "abc"); code != 2 || !strings.Contains(errs, "--head") {
				t.Errorf("verify --head abc = exit %d %s, want a usage error", code, errs)
			}

			rewriteStoreAudit(t, filepath.Join(c.data, "default", "automation", "automation.db"))
			out, _, code = c.run("audit", "verify")
			if key == "" && code != 0 {
				t.Errorf("verify without a key after the rewrite = exit %d\n%s\nwant it to pass: the chain alone proves no more", code, out)
			}
			if key != "" && (code != 1 || !strings.Contains(out, "BROKEN at record 2: MAC does not match")) {
				t.Errorf("verify with the key after the rewrite = exit %d\n%s\nwant record 2 refused", code, out)
			}
			out, _, code = c.run("audit", "verify", "--head", published)
			if code != 1 {
				t.Errorf("verify --head (published before the rewrite) = exit %d\n%s\nwant it to fail", code, out)
			}
		})
	}
}

// TestAuditExport_PruneLeavesAVerifiableChain: `audit export --until`
// writes the older records as JSON lines; with --prune it deletes them and
// appends a checkpoint, after which `audit verify` passes, and an edit of
// what is left is still caught.
func TestAuditExport_PruneLeavesAVerifiableChain(t *testing.T) {
	c := newCLI(t)
	c.createJobs(4)
	archive := filepath.Join(t.TempDir(), "audit-1.jsonl")
	_, errs := c.mustRunErr("audit", "export", "--until", "2999-01-01", "--out", archive, "--prune")
	if !strings.Contains(errs, "4 records exported; records up to 4 pruned") {
		t.Errorf("export --prune said:\n%s", errs)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var first store.AuditEvent
	if len(lines) != 4 || json.Unmarshal([]byte(lines[0]), &first) != nil || first.Seq != 1 || first.Hash == "" {
		t.Errorf("archive = %d lines, the first %+v; want records 1 to 4 with their hashes", len(lines), first)
	}
	if out := c.mustRun("audit", "verify"); !strings.Contains(out, "default: 1 records, hash chain intact; head 5") {
		t.Errorf("verify after pruning:\n%s", out)
	}
	c.createJobs(1)
	if out := c.mustRun("audit", "--json"); strings.Count(out, "\n") != 2 || !strings.Contains(out, `"action":"audit.pruned"`) {
		t.Errorf("audit after pruning and one more change:\n%s", out)
	}
	if _, _, code := c.run("audit", "export", "--until", "2999-01-01", "--out", archive); code != 1 {
		t.Errorf("export over an existing archive = exit %d, want it refused", code)
	}
	if _, errs, code := c.run("audit", "export"); code != 2 || !strings.Contains(errs, "--until is required") {
		t.Errorf("export without --until = exit %d %s", code, errs)
	}
	// An edit of a record kept is still caught.
	db, err := bbolt.Open(filepath.Join(c.data, "default", "automation", "automation.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		k, v := b.Cursor().First()
		return b.Put(slices.Clone(k), []byte(strings.Replace(string(v), "audit.pruned", "job.deleted", 1)))
	})
	db.Close()
	if out, _, code := c.run("audit", "verify"); code != 1 || !strings.Contains(out, "BROKEN at record 5") {
		t.Errorf("verify after an edit = exit %d\n%s\nwant record 5 refused", code, out)
	}
}

func (c *cli) mustRunErr(args ...string) (string, string) {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("schedbot %v: exit %d\n%s", args, code, errs)
	}
	return out, errs
}

// TestAuditExport_StartsASealedChain: records written before the audit
// key was set fail `audit verify` with it; archiving and pruning them with
// the key set leaves a checkpoint sealed with it, and the log verifies
// with the key from then on.
func TestAuditExport_StartsASealedChain(t *testing.T) {
	c := newCLI(t)
	c.createJobs(2)
	t.Setenv("SCHEDBOT_AUDIT_KEY", "0123456789abcdef0123456789abcdef")
	if out, _, code := c.run("audit", "verify"); code != 1 || !strings.Contains(out, "record 1: carries no MAC") {
		t.Fatalf("verify with a key over records written without it = exit %d\n%s", code, out)
	}
	_, errs := c.mustRunErr("audit", "export", "--until", "2999-01-01", "--out", filepath.Join(t.TempDir(), "a.jsonl"), "--prune")
	if !strings.Contains(errs, "written without the audit key") {
		t.Errorf("export said:\n%s\nwant it to say the records were not sealed", errs)
	}
	c.createJobs(1)
	if out := c.mustRun("audit", "verify"); !strings.Contains(out, "2 records, hash chain and every record's MAC intact") {
		t.Errorf("verify after archiving the unsealed records:\n%s", out)
	}
}
