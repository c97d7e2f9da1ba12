package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestMetricsServer_Timeouts: a client that leaves its connection idle,
// or stops sending a request's body, is cut off by the metrics server
// rather than holding a connection for ever.
func TestMetricsServer_Timeouts(t *testing.T) {
	saved := metricsTimeouts
	defer func() { metricsTimeouts = saved }()
	metricsTimeouts.readHeader, metricsTimeouts.read, metricsTimeouts.write, metricsTimeouts.idle =
		200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	srv := newMetricsServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("ok\n"))
	}))
	if srv.WriteTimeout == 0 || srv.IdleTimeout == 0 || srv.ReadTimeout == 0 || srv.ReadHeaderTimeout == 0 {
		t.Errorf("timeouts: read header %v, read %v, write %v, idle %v; want all set",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	// closedWithin reads c until the server closes it.
	closedWithin := func(c net.Conn, limit time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(limit))
		_, err := io.Copy(io.Discard, c)
		return err == nil // EOF: the server closed it; a timeout is an error
	}

	t.Run("idle", func(t *testing.T) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !closedWithin(c, 5*time.Second) {
			t.Error("an idle keep-alive connection stayed open")
		}
	})
	t.Run("slow body", func(t *testing.T) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"))
		if !closedWithin(c, 5*time.Second) {
			t.Error("a request whose body never came kept its connection")
		}
	})
}
