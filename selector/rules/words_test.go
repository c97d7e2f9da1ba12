package rules

import (
	"bytes"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sharedLists are the word lists several families read (words.go, with
// movingHolidays in unsupported.go and postVerbs in action.go): a list
// that holds their words is built from them.
var sharedLists = map[string][]string{
	"dayNames": dayNames, "monthNames": monthNames, "frequencyWords": frequencyWords, "everyWords": everyWords,
	"relativeDays": relativeDays, "dayParts": dayParts, "movingHolidays": movingHolidays, "postVerbs": postVerbs,
}

// ownChoice are the lists that spell some words of a shared list because
// they hold a few of them, chosen one by one, for a meaning of their own.
var ownChoice = map[string]string{
	"adjectives": "frequency words that also describe a noun (“the weekly sync”): not biweekly, and annual for annually",
	"vagueTimes": "replies that say a time but not which: a few frequency words, chosen one by one",
	"qualifiers": "words that change the day after them: every and each, not evry",
}

// TestWordListsDefinedOnce fails when a word of a shared list is written
// again in another word list of the package (a var's composite literal or
// strings.Fields): that list must be built from the shared one (wordSet,
// append), or be one of ownChoice, with why. Lists of other words may
// overlap when their meanings differ ("second" is an ordinal and a
// unit), so only the shared lists are held to it; a word a production
// matches in its code (case "fortnightly":) is its meaning, not a list.
func TestWordListsDefinedOnce(t *testing.T) {
	owner := map[string]string{}
	for name, words := range sharedLists {
		for _, w := range words {
			if w == "" {
				continue
			}
			if other, ok := owner[w]; ok && other != name {
				t.Errorf("%q is in %s and %s", w, other, name)
			}
			owner[w] = name
		}
	}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := goparser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for k, v := range vs.Values {
					name := vs.Names[k].Name
					if _, shared := sharedLists[name]; shared || ownChoice[name] != "" {
						continue
					}
					for _, w := range listedWords(v) {
						if o, ok := owner[w]; ok {
							t.Errorf("%s: %s writes %q of %s again; build it from %s", fset.Position(v.Pos()), name, w, o, o)
						}
					}
				}
			}
		}
	}
}

// listedWords are the words a var's initializer writes as a list: the
// string elements and keys of composite literals and the words passed to
// strings.Fields.
func listedWords(e ast.Expr) []string {
	var out []string
	lit := func(x ast.Expr) {
		if b, ok := x.(*ast.BasicLit); ok && b.Kind == token.STRING {
			s, _ := strconv.Unquote(b.Value)
			out = append(out, s)
		}
	}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					lit(kv.Key)
					continue
				}
				lit(el)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Fields" {
				for _, a := range n.Args {
					if b, ok := a.(*ast.BasicLit); ok && b.Kind == token.STRING {
						s, _ := strconv.Unquote(b.Value)
						out = append(out, strings.Fields(s)...)
					}
				}
			}
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "append" {
				for _, a := range n.Args[1:] {
					lit(a)
				}
			}
		}
		return true
	})
	return slices.Compact(out)
}

// TestFamilyFilesAtMost600Lines keeps a phrasing family a file a reader
// takes in whole: a file past 600 lines is two families (split it, and
// name the new file in doc.go). Test files are exempt.
func TestFamilyFilesAtMost600Lines(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > 600 {
			t.Errorf("%s has %d lines; at most 600", f, n)
		}
	}
}
