package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedbot/schedbot/selector"
)

type selectorInput = selector.Input

// benchTexts are the corpus and every phrasing of the tables: what people
// write, in the proportions the tables hold.
func benchTexts(b *testing.B) []string {
	texts := slices.Clone(corpus)
	files, _ := filepath.Glob("testdata/phrasings*.tsv")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			text, _, _ := strings.Cut(line, "\t")
			texts = append(texts, unescapeText(text))
		}
	}
	return texts
}

// BenchmarkRules is one message through the rules, over every phrasing of
// the tables; it reports the p99 of single calls as well.
func BenchmarkRules(b *testing.B) {
	var ins []selectorInput
	for _, c := range benchTexts(b) {
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
	b.ReportMetric(float64(each[len(each)/2].Microseconds()), "median-µs")
	b.ReportMetric(float64(len(each))/b.Elapsed().Seconds(), "msgs/s")
}
