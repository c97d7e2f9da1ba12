// Package localapi is the local API: while `schedbot serve` holds the
// stores, the CLI's commands go through it, over a unix socket only the
// owner may open. It holds the requests and replies, the client, and the
// socket and peer-credential checks both ends make; the daemon serves it.
package localapi

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
	"github.com/schedbot/schedbot/store"
)

// Response is every reply of the local API.
type Response struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	Usage  bool            `json:"usage,omitempty"` // the error is a usage error (exit 2)
}

// CallRequest is POST /v1/call. RequestID is the call's idempotency key.
type CallRequest struct {
	Orchestrator string          `json:"orchestrator,omitempty"`
	Profile      string          `json:"profile,omitempty"`
	Function     string          `json:"function"`
	Args         json.RawMessage `json:"args,omitempty"`
	RequestID    string          `json:"requestId,omitempty"`
}

// QueueRequest is POST /v1/queue.
type QueueRequest struct {
	Orchestrator string          `json:"orchestrator,omitempty"`
	Queue        store.QueueName `json:"queue,omitempty"`
	Limit        int             `json:"limit,omitempty"`
}

// Client talks to a running daemon's local API.
type Client struct {
	http *http.Client
}

// LocalUID is the one user the local API serves and trusts: the daemon
// refuses other peers, and the CLI refuses a socket or daemon of another
// user. Tests replace it to play another user.
var LocalUID = os.Getuid

// Dial returns a client of the running daemon, or nil when none
// answers on the configured socket. A socket that another user owns, or
// whose serving process runs as another user (SO_PEERCRED), is an error:
// the CLI would hand that user its calls.
func Dial(cfg *config.Config) (*Client, error) {
	path := cfg.Server.Socket
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != LocalUID() {
		return nil, fmt.Errorf("refusing the local API socket %s: it belongs to uid %d, not to you (uid %d)", path, st.Uid, LocalUID())
	}
	conn, err := dialPeer(context.Background(), path, 500*time.Millisecond)
	if errors.Is(err, ErrForeignPeer) {
		return nil, err
	} else if err != nil {
		return nil, nil // a socket left by a dead daemon
	}
	conn.Close()
	return &Client{http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return dialPeer(ctx, path, 0) },
	}}}, nil
}

// ErrForeignPeer is a socket served by a process of another user.
var ErrForeignPeer = errors.New("served by another user")

// dialPeer connects to the unix socket at path and checks, from the
// kernel's SO_PEERCRED, that the process serving it runs as LocalUID.
func dialPeer(ctx context.Context, path string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	cred, err := PeerCred(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("local API %s: read peer credentials: %w", path, err)
	}
	if int(cred.Uid) != LocalUID() {
		conn.Close()
		return nil, fmt.Errorf("refusing the local API at %s: %w (pid %d runs as uid %d, you are uid %d)", path, ErrForeignPeer, cred.Pid, cred.Uid, LocalUID())
	}
	return conn, nil
}

// PeerCred is the kernel's word on who is at the other end of c.
func PeerCred(c net.Conn) (*syscall.Ucred, error) {
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

// Do posts req to path and decodes the reply's result into out (nil:
// none wanted). A usage error comes back as an *app.UsageError; a call
// that got no reply as a *CutError.
func (c *Client) Do(ctx context.Context, path string, req, out any) error {
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
		return &CutError{err}
	}
	defer resp.Body.Close()
	var r Response
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&r); err != nil {
		return &CutError{fmt.Errorf("bad reply (%s): %w", resp.Status, err)}
	}
	if r.Error != "" {
		if r.Usage {
			return &app.UsageError{Msg: r.Error}
		}
		return errors.New(r.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

// CutError is a call through the local API that got no reply: the daemon
// may or may not have made it.
type CutError struct{ err error }

func (e *CutError) Error() string { return "local API: " + e.err.Error() }
func (e *CutError) Unwrap() error { return e.err }

type peerKey struct{}

// Peer is the credentials ConnContext recorded for the request's
// connection, nil when there were none.
func Peer(ctx context.Context) *syscall.Ucred {
	cred, _ := ctx.Value(peerKey{}).(*syscall.Ucred)
	return cred
}

// PeerActor is the OS user on the other end of the socket (SO_PEERCRED):
// the daemon, not the client, says who called. The daemon has refused
// every connection without credentials.
func PeerActor(ctx context.Context, profile string) store.Actor {
	a := store.Actor{ChannelProfileID: profile, Via: store.ViaCLI}
	if cred, ok := ctx.Value(peerKey{}).(*syscall.Ucred); ok && cred != nil {
		a.SenderID = strconv.Itoa(int(cred.Uid))
		if u, err := user.LookupId(a.SenderID); err == nil {
			a.Sender = u.Username
		}
	}
	return a
}

// ConnContext records each connection's peer credentials for the handler.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	cred, err := PeerCred(c)
	if err != nil {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, cred)
}

// maxSocketPath is the longest path a unix socket may be bound or
// reached at: sun_path holds 108 bytes with the terminating NUL.
const maxSocketPath = 107

// Listen listens on the unix socket at path, mode 0600 from the
// moment it appears there: it is bound and chmodded inside a fresh 0700
// directory, where no one else can reach it, and then renamed into place.
// The temporary directory lengthens the path, so it is bound through
// /proc/self/fd when that would pass the limit: only the final path must
// fit. A socket left by a dead daemon is replaced; a live one is an error.
func Listen(path string) (net.Listener, error) {
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

// ChatRequest is POST /v1/chat: one line a person typed.
type ChatRequest struct {
	Profile string `json:"profile"`
	Session string `json:"session"` // the conversation: "it" and questions are remembered per session
	Text    string `json:"text"`
}

// ChatReply is the answer; Pending when none came in the daemon's wait (it is
// then printed where serve runs).
type ChatReply struct {
	Text    string `json:"text,omitempty"`
	Pending bool   `json:"pending,omitempty"`
}
