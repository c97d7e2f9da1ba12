package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestPackageMapNamesEveryProduction holds the family map in doc.go to
// the code: every production of grammar.go's table is listed once, under
// the file that defines it.
func TestPackageMapNamesEveryProduction(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^//\t(\w+\.go) .*  ([a-z-]+(?:, [a-z-]+)*)$`)
	listed := map[string]string{} // production name: file
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		for _, name := range strings.Split(m[2], ", ") {
			if f, ok := listed[name]; ok {
				t.Errorf("doc.go lists %s under %s and %s", name, f, m[1])
			}
			listed[name] = m[1]
		}
	}
	seen := map[string]bool{}
	for _, prod := range productions {
		if seen[prod.name] {
			t.Errorf("two productions are named %s", prod.name)
		}
		seen[prod.name] = true
		pc := reflect.ValueOf(prod.read).Pointer()
		file, _ := runtime.FuncForPC(pc).FileLine(pc)
		switch f, ok := listed[prod.name]; {
		case !ok:
			t.Errorf("doc.go does not list production %s (%s)", prod.name, filepath.Base(file))
		case f != filepath.Base(file):
			t.Errorf("doc.go lists production %s under %s; it is in %s", prod.name, f, filepath.Base(file))
		}
	}
	for name := range listed {
		if !seen[name] {
			t.Errorf("doc.go lists %s, which is no production", name)
		}
	}
}
