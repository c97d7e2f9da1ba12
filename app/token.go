package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	httpapi "github.com/schedbot/schedbot/adapters/http"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/store"
)

// HTTP API tokens: `schedbot token create|list|revoke`. A token lives in
// its profile's orchestrator's store, as a hash.

// TokenRequest is POST /v1/token of the local API, and what each
// subcommand asks.
type TokenRequest struct {
	Op        string    `json:"op"` // create | list | revoke
	Profile   string    `json:"profile,omitempty"`
	Sender    string    `json:"sender,omitempty"`
	Name      string    `json:"name,omitempty"`
	Feed      bool      `json:"feed,omitempty"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	ID        string    `json:"id,omitempty"`
	Actor     string    `json:"actor,omitempty"` // who runs the command (the CLI's user)
}

// TokenResult is what a create answers: the token, shown this once.
type TokenResult struct {
	Token  string         `json:"token,omitempty"`
	Record *store.Token   `json:"record,omitempty"`
	List   []*store.Token `json:"list,omitempty"`
}

// Audit actions of the token commands.
const (
	auditTokenCreated = "token.created"
	auditTokenRevoked = "token.revoked"
)

// TokenOp makes one token change or listing; with runs fn on the store
// of an orchestrator (the daemon's open one, or one opened for it).
func TokenOp(ctx context.Context, cfg *config.Config, with func(*config.Orchestrator, func(store.Store) error) error, req TokenRequest) (TokenResult, error) {
	var res TokenResult
	actor := store.Actor{Via: store.ViaCLI, Sender: req.Actor}
	now := time.Now().UTC().Truncate(time.Second)
	switch req.Op {
	case "create":
		p, err := cfg.Profile(req.Profile)
		if err != nil {
			return res, Usagef("--profile: %v", err)
		}
		o, err := cfg.Orchestrator(p.OrchestratorID)
		if err != nil {
			return res, err
		}
		token, hash := httpapi.NewToken()
		rec := &store.Token{Hash: hash, ID: "tok_" + ulid.Make().String(), Name: req.Name, ChannelProfileID: p.ID,
			SenderID: req.Sender, Feed: req.Feed, CreatedAt: now, ExpiresAt: req.ExpiresAt}
		if rec.Name == "" {
			rec.Name = "token-" + strings.ToLower(rec.ID[len(rec.ID)-6:])
		}
		err = with(o, func(st store.Store) error {
			return st.Update(ctx, func(tx store.Tx) error {
				if err := tx.TokenPut(rec); err != nil {
					return err
				}
				return tx.AuditAppend(&store.AuditEvent{OrchestratorID: o.ID, Actor: actor, Action: auditTokenCreated,
					Detail: fmt.Sprintf("token %s (%q) for sender %s of profile %s", rec.ID, rec.Name, rec.SenderID, rec.ChannelProfileID)})
			})
		})
		res.Token, res.Record = token, rec
		return res, err
	case "list":
		for _, id := range cfg.OrchestratorIDs() {
			err := with(cfg.Orchestrators[id], func(st store.Store) error {
				return st.View(ctx, func(tx store.Tx) error {
					l, err := tx.TokenList()
					res.List = append(res.List, l...)
					return err
				})
			})
			if err != nil {
				return res, err
			}
		}
		for _, t := range res.List {
			t.Hash = "" // not a secret, but of no use to anyone
		}
		return res, nil
	case "revoke":
		for _, id := range cfg.OrchestratorIDs() {
			o := cfg.Orchestrators[id]
			err := with(o, func(st store.Store) error {
				return st.Update(ctx, func(tx store.Tx) error {
					l, err := tx.TokenList()
					if err != nil {
						return err
					}
					for _, t := range l {
						if t.ID != req.ID {
							continue
						}
						if t.RevokedAt.IsZero() {
							t.RevokedAt = now
							if err := tx.TokenPut(t); err != nil {
								return err
							}
							if err := tx.AuditAppend(&store.AuditEvent{OrchestratorID: o.ID, Actor: actor, Action: auditTokenRevoked,
								Detail: fmt.Sprintf("token %s (%q)", t.ID, t.Name)}); err != nil {
								return err
							}
						}
						t.Hash = ""
						res.Record = t
					}
					return nil
				})
			})
			if err != nil || res.Record != nil {
				return res, err
			}
		}
		return res, fmt.Errorf("token %s: %w (see schedbot token list)", req.ID, store.ErrNotFound)
	}
	return res, Usagef("token: unknown operation %q", req.Op)
}
