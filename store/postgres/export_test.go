package postgres

import "time"

// OnListening makes s call fn each time its LISTEN is in place.
func OnListening(s *Store, fn func()) { s.listening = fn }

// OnWatchLook makes s's Watch call fn after each look.
func OnWatchLook(s *Store, fn func()) { s.watched = fn }

// SetWatchEvery makes Watch look every d until the returned func is called.
func SetWatchEvery(d time.Duration) func() {
	old := watchEvery
	watchEvery = d
	return func() { watchEvery = old }
}
