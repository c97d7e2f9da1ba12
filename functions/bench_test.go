package functions_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
)

// BenchmarkCreate is one durable (fsync'd) schedule.create.
func BenchmarkCreate(b *testing.B) {
	st, err := bolt.Open(filepath.Join(b.TempDir(), "automation.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{
		ID: "default", Timezone: "UTC", MaxJobs: 1 << 30, Functions: []string{"*"}}, Profiles: profiles})
	req := functions.Request{Function: "schedule.create", Args: []byte(friday), Actor: cli}
	for b.Loop() {
		if _, err := reg.Call(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}

var (
	bigOnce sync.Once
	bigPath string
)

// bigStore is a store file with 100k enabled jobs, built once per run.
func bigStore(b *testing.B) string {
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "schedbot-bench-")
		if err != nil {
			b.Fatal(err)
		}
		bigPath = filepath.Join(dir, "automation.db")
		st, err := bolt.Open(bigPath, nil)
		if err != nil {
			b.Fatal(err)
		}
		base := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		for batch := range 10 {
			err := st.Update(b.Context(), func(tx store.Tx) error {
				for i := range 10000 {
					n := batch*10000 + i
					j := storetest.NewJob(fmt.Sprintf("01K%023d", n), base.Add(time.Duration(n*7919%100000)*time.Minute))
					if err := tx.JobPut(j); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		st.Close()
	})
	return bigPath
}

// BenchmarkList100k is schedule.list's first page of 50, by next run, of 100k jobs.
func BenchmarkList100k(b *testing.B) {
	st, err := bolt.Open(bigStore(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	reg := functions.NewRegistry(functions.Deps{Store: st, Orchestrator: functions.Orchestrator{ID: "default", Functions: []string{"*"}}})
	req := functions.Request{Function: "schedule.list", Args: []byte(`{"limit":50}`), Actor: cli}
	for b.Loop() {
		res, err := reg.Call(b.Context(), req)
		if err != nil || len(res.(*store.JobPage).Jobs) != 50 {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen100k opens the 100k-job store and reads its earliest due job.
func BenchmarkOpen100k(b *testing.B) {
	path := bigStore(b)
	for b.Loop() {
		st, err := bolt.Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		err = func() error {
			next, err := st.NextRun(b.Context())
			if next.IsZero() {
				return fmt.Errorf("no next run")
			}
			return err
		}()
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bigPath != "" {
		os.RemoveAll(filepath.Dir(bigPath))
	}
	os.Exit(code)
}
