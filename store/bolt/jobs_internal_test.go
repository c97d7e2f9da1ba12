package bolt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/schedbot/schedbot/store"
)

// statusFields are the Job fields kept in the status record; JobPut may
// skip rewriting the definition when only these changed.
var statusFields = map[string]bool{"State": true, "NextRunAt": true, "NextRunAtLocal": true,
	"LastRunAt": true, "LastResult": true, "RunCount": true, "UpdatedAt": true}

func fullJob() *store.Job {
	at := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	return &store.Job{JobID: "J", OrchestratorID: "o", Name: "n",
		CreatedBy:    store.Actor{ChannelProfileID: "p", SenderID: "s", Sender: "ada", MessageID: "m", Via: "slack"},
		ScheduleType: "cron", Schedule: store.Schedule{Cron: "0 9 * * *", Timezone: "UTC", EverySeconds: 60, StartAt: at, RunAt: at},
		EndAt: at, TargetAction: store.TargetAction{Type: "workflow_start", WorkflowID: "w", Inputs: map[string]any{"a": "b"},
			FunctionID: "f", FunctionArgs: json.RawMessage(`{"x":1}`)},
		TargetRef: &store.TargetRef{Channel: "slack", ChannelProfileID: "p", ChannelID: "C1", ThreadTS: "1.2", PostingMode: "thread_reply"},
		State:     store.JobEnabled, MisfirePolicy: "skip_missed", OverlapPolicy: "allow", NextRunAt: at, NextRunAtLocal: "l",
		Description: "d", LastRunAt: at, LastResult: &store.Result{ExecutionID: "e", Status: "completed", Error: "x"},
		RunCount: 3, CreatedAt: at, UpdatedAt: at}
}

// leaves lists the paths (field names) of every changeable value in a Job.
func leaves(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		path := prefix + f.Name
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]() {
			out = append(out, leaves(ft, path+".")...)
			continue
		}
		out = append(out, path)
	}
	return out
}

func change(t *testing.T, j *store.Job, path string) {
	v := reflect.ValueOf(j).Elem()
	for _, name := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		v = v.FieldByName(name)
	}
	switch x := v.Addr().Interface().(type) {
	case *time.Time:
		*x = x.Add(time.Second)
	case *json.RawMessage:
		*x = json.RawMessage(`{"x":2}`)
	case *map[string]any:
		(*x)["new"] = 1.0
	default:
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		default:
			t.Fatalf("%s: a %s field; teach this test (and sameDefinition) about it", path, v.Type())
		}
	}
}

// TestSameDefinitionCoversEveryField changes each field of a job in turn:
// a definition field must make sameDefinition false (else JobPut would
// drop the change), a status field must not.
func TestSameDefinitionCoversEveryField(t *testing.T) {
	for _, path := range leaves(reflect.TypeFor[store.Job](), "") {
		def, _ := splitJob(fullJob())
		j := fullJob()
		change(t, j, path)
		status := statusFields[strings.Split(path, ".")[0]]
		if got := sameDefinition(def, j); got != status {
			t.Errorf("after changing %s, sameDefinition = %v, want %v", path, got, status)
		}
	}
	// Nil and present pointers and maps differ too.
	def, _ := splitJob(fullJob())
	j := fullJob()
	j.TargetRef = nil
	if sameDefinition(def, j) {
		t.Error("a removed targetRef counts as the same definition")
	}
	j = fullJob()
	j.TargetAction.Inputs = nil
	if sameDefinition(def, j) {
		t.Error("removed inputs count as the same definition")
	}
}

// TestSplitMergeRoundTrip: a job split into its two records and merged
// back is the job, and shares nothing with the records.
func TestSplitMergeRoundTrip(t *testing.T) {
	j := fullJob()
	def, st := splitJob(j)
	got := mergeJob(def, st)
	if !reflect.DeepEqual(got, j) {
		t.Fatalf("merge(split(j)) =\n%+v\nwant\n%+v", got, j)
	}
	got.TargetAction.Inputs["a"], got.LastResult.Status = "changed", "changed"
	if def.TargetAction.Inputs["a"] != "b" || st.LastResult.Status != "completed" {
		t.Error("the merged job shares memory with its records")
	}
}

// TestCursorReaderReadsAnyOrder: keys in order, out of order, missing,
// and past the end all read what a Get would.
func TestCursorReaderReadsAnyOrder(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "c.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := 0; i < 200; i += 2 { // even keys only
			if err := b.Put(fmt.Appendf(nil, "k%03d", i), fmt.Appendf(nil, "v%d", i)); err != nil {
				return err
			}
		}
		r := cursorReader{c: b.Cursor()}
		for _, i := range []int{0, 1, 2, 4, 5, 6, 30, 31, 32, 8, 10, 198, 199, 250, 3, 100, 101, 102, 104, 120} {
			key := fmt.Appendf(nil, "k%03d", i)
			if got, want := r.get(key), b.Get(key); !bytes.Equal(got, want) {
				t.Errorf("get(%s) = %q, want %q", key, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
