package ops_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
	"github.com/schedbot/schedbot/store/bolt"
	"github.com/schedbot/schedbot/store/storetest"
)

// chunkFiring moves each job it is handed on by a day and notes its
// transaction; its Committed runs wake.
type chunkFiring struct {
	chunk int
	note  func(string)
	wake  func(chunk int)
	noted bool
}

func (f *chunkFiring) Fire(_ store.Tx, j *store.Job) error {
	if !f.noted {
		f.note(fmt.Sprintf("chunk %d", f.chunk))
		f.noted = true
	}
	j.NextRunAt = j.NextRunAt.Add(24 * time.Hour)
	return nil
}

func (f *chunkFiring) SetAside(store.Tx, *store.RecordError) error { return nil }
func (f *chunkFiring) Committed()                                  { f.wake(f.chunk) }

// Between the transactions of a burst, Fire lets a goroutine the last
// commit woke (serve's worker) take the write lock before the next
// transaction: the burst's first post leaves while the rest fires. One
// processor, so that nothing else runs the woken goroutine.
func TestFireChunks_YieldToWhomACommitWoke(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	st, err := bolt.Open(filepath.Join(t.TempDir(), "automation.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	err = st.Update(ctx, func(tx store.Tx) error {
		for i := range 70 {
			if err := tx.JobPut(storetest.NewJob(fmt.Sprintf("J%02d", i), at)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string
	note := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	var wg sync.WaitGroup
	wake := func(chunk int) {
		if chunk == 1 {
			wg.Go(func() {
				if err := st.Update(ctx, func(store.Tx) error { note("worker"); return nil }); err != nil {
					t.Error(err)
				}
			})
		}
	}
	chunk := 0
	err = st.Fire(ctx, store.FireParams{Now: at, First: 10, Batch: 40}, func() store.Firing {
		chunk++
		return &chunkFiring{chunk: chunk, note: note, wake: wake}
	})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"chunk 1", "worker", "chunk 2", "chunk 3"}; !slices.Equal(events, want) {
		t.Errorf("transactions in the order %q, want %q", events, want)
	}
}
