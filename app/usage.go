package app

import "fmt"

// UsageError is a mistake in how schedbot was called: the CLI exits 2 on
// it, and the local API says so in its reply.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError saying format.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }
