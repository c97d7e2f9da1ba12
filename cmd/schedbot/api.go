package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/schedbot/schedbot/config"
	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// The local API: while `schedbot serve` holds the stores, the CLI's
// commands go through it, over a unix socket only the owner may open.

// apiResponse is every reply of the local API.
type apiResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	Usage  bool            `json:"usage,omitempty"` // the error is a usage error (exit 2)
}

// callRequest is POST /v1/call.
type callRequest struct {
	Orchestrator string          `json:"orchestrator,omitempty"`
	Profile      string          `json:"profile,omitempty"`
	Function     string          `json:"function"`
	Args         json.RawMessage `json:"args,omitempty"`
}

// queueRequest is POST /v1/queue.
type queueRequest struct {
	Orchestrator string          `json:"orchestrator,omitempty"`
	Queue        store.QueueName `json:"queue,omitempty"`
	Limit        int             `json:"limit,omitempty"`
}

type apiClient struct {
	http *http.Client
}

// dialDaemon returns a client of the running daemon, or nil when none
// answers on the configured socket.
func dialDaemon(cfg *config.Config) *apiClient {
	path := cfg.Server.Socket
	conn, err := net.DialTimeout("unix", path, 500*time.Millisecond)
	if err != nil {
		return nil
	}
	conn.Close()
	return &apiClient{http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}}
}

func (c *apiClient) do(ctx context.Context, path string, req, out any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://schedbot"+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return fmt.Errorf("local API: %w", err)
	}
	defer resp.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&r); err != nil {
		return fmt.Errorf("local API: bad reply (%s): %w", resp.Status, err)
	}
	if r.Error != "" {
		if r.Usage {
			return &usageError{r.Error}
		}
		return errors.New(r.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

// resultFor is the Go type a function's result decodes into, so that the
// CLI prints an API result as it prints a direct one.
func resultFor(fn string) any {
	switch fn {
	case "schedule.list":
		return &store.JobPage{}
	case "schedule.run_now":
		return &functions.RunNowResult{}
	case "message.post":
		return &functions.MessagePostResult{}
	case "schedule.create", "schedule.update", "schedule.show", "schedule.pause", "schedule.resume", "schedule.delete":
		return &functions.JobResult{}
	}
	return &json.RawMessage{}
}

type peerKey struct{}

// peerActor is the OS user on the other end of the socket (SO_PEERCRED):
// the daemon, not the client, says who called.
func peerActor(ctx context.Context, profile string) store.Actor {
	a := store.Actor{ChannelProfileID: profile, Via: store.ViaCLI}
	if cred, ok := ctx.Value(peerKey{}).(*syscall.Ucred); ok && cred != nil {
		a.SenderID = strconv.Itoa(int(cred.Uid))
		if u, err := user.LookupId(a.SenderID); err == nil {
			a.Sender = u.Username
		}
	}
	return a
}

func connContext(ctx context.Context, c net.Conn) context.Context {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ctx
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return ctx
	}
	var cred *syscall.Ucred
	raw.Control(func(fd uintptr) {
		cred, _ = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	return context.WithValue(ctx, peerKey{}, cred)
}

// listenSocket listens on the unix socket at path, mode 0600. A socket
// left by a dead daemon is replaced; a live one is an error.
func listenSocket(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if conn, err := net.DialTimeout("unix", path, 500*time.Millisecond); err == nil {
		conn.Close()
		return nil, fmt.Errorf("another schedbot is serving on %s", path)
	}
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// apiHandler serves the local API from the daemon's open orchestrators.
func (d *daemon) apiHandler() http.Handler {
	mux := http.NewServeMux()
	handle := func(path string, fn func(ctx context.Context, body []byte) (any, error)) {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(io.LimitReader(r.Body, functions.MaxArgsBytes+4096))
			var res any
			if err == nil {
				res, err = fn(r.Context(), body)
			}
			w.Header().Set("Content-Type", "application/json")
			var out apiResponse
			if err != nil {
				var ue *usageError
				out.Error, out.Usage = err.Error(), errors.As(err, &ue)
				w.WriteHeader(http.StatusUnprocessableEntity)
			} else if out.Result, err = json.Marshal(res); err != nil {
				out.Error = err.Error()
			}
			json.NewEncoder(w).Encode(out)
		})
	}
	handle("/v1/call", func(ctx context.Context, body []byte) (any, error) {
		var req callRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		o, _, err := pickOrchestrator(d.cfg, req.Orchestrator, req.Profile)
		if err != nil {
			return nil, err
		}
		return d.orchs[o.ID].reg.Call(ctx, functions.Request{Function: req.Function, Args: req.Args, Actor: peerActor(ctx, req.Profile)})
	})
	handle("/v1/audit", func(ctx context.Context, body []byte) (any, error) {
		var q auditQuery
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return auditEvents(ctx, d.cfg, d.view, q)
	})
	handle("/v1/audit/verify", func(ctx context.Context, body []byte) (any, error) {
		var q auditQuery
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return verifyAudit(ctx, d.cfg, d.view, q.Orchestrator)
	})
	handle("/v1/queue", func(ctx context.Context, body []byte) (any, error) {
		var q queueRequest
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return queueItems(ctx, d.cfg, d.view, q.Orchestrator, q.Queue, q.Limit)
	})
	return mux
}
