package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/schedbot/schedbot/store/postgres"
	"github.com/schedbot/schedbot/store/postgres/pgtest"
)

// TestMigrations: an empty database ends at this build's version, and a
// second open finds nothing to do; a database newer than this build is
// refused.
func TestMigrations(t *testing.T) {
	ctx := t.Context()
	t.Run("FromEmpty", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		mustOpen(t, dsn, "a")
		mustOpen(t, dsn, "b") // a second open finds nothing to do
		var want []string
		for v := range postgres.SchemaVersion() {
			want = append(want, fmt.Sprint(v+1))
		}
		if got := versions(t, dsn); got != strings.Join(want, ",") {
			t.Errorf("applied versions = %s, want %s", got, strings.Join(want, ","))
		}
	})
	t.Run("NewerIsRefused", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		mustOpen(t, dsn, "a")
		if _, err := mustConnect(t, dsn).Exec(ctx, `INSERT INTO schedbot_schema_migrations (version, name) VALUES (99, 'future')`); err != nil {
			t.Fatal(err)
		}
		_, err := postgres.Open(ctx, dsn, "a", nil)
		if err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("Open on a newer schema = %v, want a refusal", err)
		}
	})
}

func mustConnect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func versions(t *testing.T, dsn string) string {
	t.Helper()
	var v string
	err := mustConnect(t, dsn).QueryRow(t.Context(), `SELECT string_agg(version::text, ',' ORDER BY version) FROM schedbot_schema_migrations`).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
