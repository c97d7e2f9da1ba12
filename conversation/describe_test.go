package conversation

import (
	"testing"
	"time"

	"github.com/schedbot/schedbot/store"
)

// A yearly job's next runs fall on the same day of different years: the
// confirmation tells them apart by their years; runs within a year say none.
func TestNextRuns_SaysYearsOnlyAcrossThem(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	j := &store.Job{Schedule: store.Schedule{Timezone: "America/New_York"}}
	yearly := []time.Time{time.Date(2027, 7, 4, 9, 0, 0, 0, ny), time.Date(2028, 7, 4, 9, 0, 0, 0, ny)}
	if got, want := nextRuns(j, yearly), " Next: Sun 4 Jul 2027, Tue 4 Jul 2028."; got != want {
		t.Errorf("nextRuns(yearly) = %q, want %q", got, want)
	}
	daily := []time.Time{time.Date(2027, 7, 4, 9, 0, 0, 0, ny), time.Date(2027, 7, 5, 9, 0, 0, 0, ny)}
	if got, want := nextRuns(j, daily), " Next: Sun 4 Jul, Mon 5 Jul."; got != want {
		t.Errorf("nextRuns(daily) = %q, want %q", got, want)
	}
}
