package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/schedbot/schedbot/app"
	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/localapi"
	"github.com/schedbot/schedbot/store"
)

// apiHandler serves the local API from the daemon's open orchestrators.
func (d *Daemon) apiHandler() http.Handler {
	mux := http.NewServeMux()
	handle := func(path string, fn func(ctx context.Context, body []byte) (any, error)) {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(io.LimitReader(r.Body, functions.MaxArgsBytes+4096))
			var res any
			if err == nil {
				res, err = fn(r.Context(), body)
			}
			w.Header().Set("Content-Type", "application/json")
			var out localapi.Response
			if err != nil {
				var ue *app.UsageError
				out.Error, out.Usage = err.Error(), errors.As(err, &ue)
				w.WriteHeader(http.StatusUnprocessableEntity)
			} else if out.Result, err = json.Marshal(res); err != nil {
				out.Error = err.Error()
			}
			json.NewEncoder(w).Encode(out)
		})
	}
	handle("/v1/call", func(ctx context.Context, body []byte) (any, error) {
		var req localapi.CallRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, app.Usagef("bad request: %v", err)
		}
		o, _, err := app.PickOrchestrator(d.cfg, req.Orchestrator, req.Profile)
		if err != nil {
			return nil, err
		}
		return app.CallOnce(ctx, d.orchs[o.ID], req.Profile, functions.Request{Function: req.Function, Args: req.Args, Actor: localapi.PeerActor(ctx, req.Profile)}, req.RequestID)
	})
	handle("/v1/chat", func(ctx context.Context, body []byte) (any, error) {
		var req localapi.ChatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, app.Usagef("bad request: %v", err)
		}
		return d.chatMessage(ctx, req)
	})
	handle("/v1/audit", func(ctx context.Context, body []byte) (any, error) {
		var q app.AuditQuery
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, app.Usagef("bad request: %v", err)
		}
		return app.AuditEvents(ctx, d.cfg, d.view, q)
	})
	handle("/v1/audit/verify", func(ctx context.Context, body []byte) (any, error) {
		var q app.AuditQuery
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, app.Usagef("bad request: %v", err)
		}
		return app.VerifyAudit(ctx, d.cfg, d.view, q.Orchestrator, q.Head)
	})
	handle("/v1/queue", func(ctx context.Context, body []byte) (any, error) {
		var q localapi.QueueRequest
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, app.Usagef("bad request: %v", err)
		}
		return app.QueueItems(ctx, d.cfg, d.view, q.Orchestrator, q.Queue, q.Limit)
	})
	handle("/v1/token", d.tokenCall)
	// Only the daemon's own user may call, whatever the request says.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred := localapi.Peer(r.Context())
		if cred == nil || int(cred.Uid) != localapi.LocalUID() {
			msg := fmt.Sprintf("the local API serves only uid %d; the caller's credentials were not given", localapi.LocalUID())
			if cred != nil {
				msg = fmt.Sprintf("the local API serves only uid %d; the caller runs as uid %d", localapi.LocalUID(), cred.Uid)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			json.NewEncoder(w).Encode(localapi.Response{Error: msg})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// tokenCall serves POST /v1/token from the daemon's open stores.
func (d *Daemon) tokenCall(ctx context.Context, body []byte) (any, error) {
	var req app.TokenRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, app.Usagef("bad request: %v", err)
	}
	return app.TokenOp(ctx, d.cfg, func(o *config.Orchestrator, fn func(store.Store) error) error {
		oc := d.orchs[o.ID]
		if oc == nil {
			return errors.New("orchestrator " + o.ID + " is not served")
		}
		return fn(oc.Store)
	}, req)
}
