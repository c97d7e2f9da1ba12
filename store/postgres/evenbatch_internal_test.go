package postgres

import (
	"math"
	"testing"
)

// TestEvenBatch: a burst is split into one transaction size for all
// dispatchers, never above the most and never below one, whatever the
// count, the dispatchers (none said) or the most (one, or no limit).
func TestEvenBatch(t *testing.T) {
	for _, c := range []struct {
		name         string
		due, n, most int
		want         int
	}{
		{"nothing due", 0, 2, 5000, 5000},
		{"fewer due than dispatchers", 1, 2, 5000, 1},
		{"one more than the dispatchers", 3, 2, 5000, 2},
		{"a share each", 10000, 2, 5000, 5000},
		{"a share each, split", 10001, 2, 5000, 2501},
		{"6k in two 3000s", 6000, 2, 5000, 3000},
		{"12 in fours between two", 12, 2, 4, 3},
		{"more dispatchers than slots", 7, 3, 5000, 3},
		{"batch of one", 100, 2, 1, 1},
		{"no dispatcher named", 10, 0, 4, 4},
		{"huge due", math.MaxInt, 2, 5000, 5000},
		{"no limit", 5, 2, math.MaxInt, 3},
		{"huge due, no limit", math.MaxInt, 1, math.MaxInt, math.MaxInt},
	} {
		if got := evenBatch(c.due, c.n, c.most); got != c.want {
			t.Errorf("%s: evenBatch(%d, %d, %d) = %d, want %d", c.name, c.due, c.n, c.most, got, c.want)
		}
	}
}
