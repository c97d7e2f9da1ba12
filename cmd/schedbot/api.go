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

	"github.com/schedbot/schedbot/app"
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

// callRequest is POST /v1/call. RequestID is the call's idempotency key.
type callRequest struct {
	Orchestrator string          `json:"orchestrator,omitempty"`
	Profile      string          `json:"profile,omitempty"`
	Function     string          `json:"function"`
	Args         json.RawMessage `json:"args,omitempty"`
	RequestID    string          `json:"requestId,omitempty"`
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

// localUID is the one user the local API serves and trusts: the daemon
// refuses other peers, and the CLI refuses a socket or daemon of another
// user. Tests replace it to play another user.
var localUID = os.Getuid

// dialDaemon returns a client of the running daemon, or nil when none
// answers on the configured socket. A socket that another user owns, or
// whose serving process runs as another user (SO_PEERCRED), is an error:
// the CLI would hand that user its calls.
func dialDaemon(cfg *config.Config) (*apiClient, error) {
	path := cfg.Server.Socket
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != localUID() {
		return nil, fmt.Errorf("refusing the local API socket %s: it belongs to uid %d, not to you (uid %d)", path, st.Uid, localUID())
	}
	conn, err := dialPeer(context.Background(), path, 500*time.Millisecond)
	if errors.Is(err, errForeignPeer) {
		return nil, err
	} else if err != nil {
		return nil, nil // a socket left by a dead daemon
	}
	conn.Close()
	return &apiClient{http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return dialPeer(ctx, path, 0) },
	}}}, nil
}

var errForeignPeer = errors.New("served by another user")

// dialPeer connects to the unix socket at path and checks, from the
// kernel's SO_PEERCRED, that the process serving it runs as localUID.
func dialPeer(ctx context.Context, path string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	cred, err := peerCred(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("local API %s: read peer credentials: %w", path, err)
	}
	if int(cred.Uid) != localUID() {
		conn.Close()
		return nil, fmt.Errorf("refusing the local API at %s: %w (pid %d runs as uid %d, you are uid %d)", path, errForeignPeer, cred.Pid, cred.Uid, localUID())
	}
	return conn, nil
}

// peerCred is the kernel's word on who is at the other end of c.
func peerCred(c net.Conn) (*syscall.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		cred, gerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, gerr
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
		return &cutError{err}
	}
	defer resp.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&r); err != nil {
		return &cutError{fmt.Errorf("bad reply (%s): %w", resp.Status, err)}
	}
	if r.Error != "" {
		if r.Usage {
			return &usageError{Msg: r.Error}
		}
		return errors.New(r.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

// cutError is a call through the local API that got no reply: the daemon
// may or may not have made it.
type cutError struct{ err error }

func (e *cutError) Error() string { return "local API: " + e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

type peerKey struct{}

// peerActor is the OS user on the other end of the socket (SO_PEERCRED):
// the daemon, not the client, says who called. apiHandler has refused
// every connection without credentials.
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

// connContext records each connection's peer credentials for the handler.
func connContext(ctx context.Context, c net.Conn) context.Context {
	cred, err := peerCred(c)
	if err != nil {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, cred)
}

// maxSocketPath is the longest path a unix socket may be bound or
// reached at: sun_path holds 108 bytes with the terminating NUL.
const maxSocketPath = 107

// listenSocket listens on the unix socket at path, mode 0600 from the
// moment it appears there: it is bound and chmodded inside a fresh 0700
// directory, where no one else can reach it, and then renamed into place.
// The temporary directory lengthens the path, so it is bound through
// /proc/self/fd when that would pass the limit: only the final path must
// fit. A socket left by a dead daemon is replaced; a live one is an error.
func listenSocket(path string) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("server.socket: %s is %d bytes, longer than the %d a unix socket path may have; "+
			"set server.socket in a config file (--config) to a shorter path, such as /run/user/%d/schedbot.sock, or use a shorter --data",
			path, len(path), maxSocketPath, os.Getuid())
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if conn, err := net.DialTimeout("unix", path, 500*time.Millisecond); err == nil {
		conn.Close()
		return nil, fmt.Errorf("another schedbot is serving on %s", path)
	}
	private, err := os.MkdirTemp(dir, ".schedbot-sock-") // mode 0700
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	defer os.RemoveAll(private)
	tmp := filepath.Join(private, "s")
	bindAt := tmp
	if len(tmp) > maxSocketPath {
		// The same directory, reached through a short path.
		d, err := os.Open(private)
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w", path, err)
		}
		defer d.Close()
		bindAt = fmt.Sprintf("/proc/self/fd/%d/s", d.Fd())
	}
	l, err := net.Listen("unix", bindAt)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // serve removes path itself
	if err := os.Chmod(tmp, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
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
		o, _, err := app.PickOrchestrator(d.cfg, req.Orchestrator, req.Profile)
		if err != nil {
			return nil, err
		}
		return app.CallOnce(ctx, d.orchs[o.ID], req.Profile, functions.Request{Function: req.Function, Args: req.Args, Actor: peerActor(ctx, req.Profile)}, req.RequestID)
	})
	handle("/v1/chat", func(ctx context.Context, body []byte) (any, error) {
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return d.chatMessage(ctx, req)
	})
	handle("/v1/audit", func(ctx context.Context, body []byte) (any, error) {
		var q app.AuditQuery
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return app.AuditEvents(ctx, d.cfg, d.view, q)
	})
	handle("/v1/audit/verify", func(ctx context.Context, body []byte) (any, error) {
		var q app.AuditQuery
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return app.VerifyAudit(ctx, d.cfg, d.view, q.Orchestrator, q.Head)
	})
	handle("/v1/queue", func(ctx context.Context, body []byte) (any, error) {
		var q queueRequest
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, usagef("bad request: %v", err)
		}
		return app.QueueItems(ctx, d.cfg, d.view, q.Orchestrator, q.Queue, q.Limit)
	})
	handle("/v1/token", d.tokenCall)
	// Only the daemon's own user may call, whatever the request says.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred, _ := r.Context().Value(peerKey{}).(*syscall.Ucred)
		if cred == nil || int(cred.Uid) != localUID() {
			msg := fmt.Sprintf("the local API serves only uid %d; the caller's credentials were not given", localUID())
			if cred != nil {
				msg = fmt.Sprintf("the local API serves only uid %d; the caller runs as uid %d", localUID(), cred.Uid)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			json.NewEncoder(w).Encode(apiResponse{Error: msg})
			return
		}
		mux.ServeHTTP(w, r)
	})
}
