package rules

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("DBG"), "|") {
		in := input(s)
		in.Jobs = jobs
		d := Decide(in)
		fmt.Printf("%q\n   -> %s %s %s%s%s\n", s, d.Function, d.Args, d.Clarify, d.Unsupported, d.Reply)
	}
}
