package rules

import (
	"slices"
	"testing"
	"time"

	"github.com/schedbot/schedbot/selector"
)

type selectorInput = selector.Input

// BenchmarkRules is one message through the rules, over a mix of
// phrasings; it reports the p99 of single calls as well.
func BenchmarkRules(b *testing.B) {
	ins := make([]selectorInput, 0, len(corpus))
	for _, c := range corpus {
		in := input(c)
		in.Jobs = jobs
		ins = append(ins, in)
	}
	var each []time.Duration
	i := 0
	for b.Loop() {
		in := ins[i%len(ins)]
		start := time.Now()
		Decide(in)
		each = append(each, time.Since(start))
		i++
	}
	slices.Sort(each)
	b.ReportMetric(float64(each[len(each)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(len(each))/b.Elapsed().Seconds(), "msgs/s")
}
