package localapi

import (
	"bytes"
	bin "encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// inotifyEvents returns the masks of the events queued on fd, by name.
func inotifyEvents(t *testing.T, fd int) map[string][]uint32 {
	t.Helper()
	out := map[string][]uint32{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EAGAIN) || n <= 0 {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			mask := bin.NativeEndian.Uint32(buf[off+4:])
			l := int(bin.NativeEndian.Uint32(buf[off+12:]))
			name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+l], "\x00"))
			out[name] = append(out[name], mask)
			off += syscall.SizeofInotifyEvent + l
		}
	}
}

// TestListenSocket_PrivateFromTheStart watches the socket's directory: the
// socket must appear at its path already 0600, never be created there with
// the umask's mode and chmodded after (a window in which anyone could
// connect).
func TestListenSocket_PrivateFromTheStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "schedbot.sock")
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_ATTRIB|syscall.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	events := inotifyEvents(t, fd)
	masks := events[filepath.Base(path)]
	if len(masks) == 0 {
		t.Fatalf("no event for the socket: %v", events)
	}
	for _, m := range masks {
		if m&syscall.IN_ATTRIB != 0 {
			t.Errorf("the socket's mode changed after it appeared at %s (events %#x)", path, masks)
		}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket of mode 0600", fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the socket's directory: %v", ents)
	}
}

// TestDialPeer_RefusesADaemonOfAnotherUser: the CLI asks the kernel who
// serves the socket (SO_PEERCRED), and refuses a process of another user
// even when the socket itself looks like its own.
func TestDialPeer_RefusesADaemonOfAnotherUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "schedbot.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	me := strconv.Itoa(os.Getuid())
	t.Cleanup(func() { LocalUID = os.Getuid })
	LocalUID = func() int { return os.Getuid() + 1 }
	_, err = dialPeer(t.Context(), path, 0)
	if !errors.Is(err, ErrForeignPeer) || !strings.Contains(err.Error(), "runs as uid "+me) {
		t.Errorf("dial a daemon of uid %s as uid %d: %v", me, LocalUID(), err)
	}
	LocalUID = os.Getuid
	c, err := dialPeer(t.Context(), path, 0)
	if err != nil {
		t.Fatalf("dial a daemon of one's own uid: %v", err)
	}
	c.Close()
}

// socketDir is a directory under t.TempDir whose path is n bytes long.
func socketDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if len(dir)+2 > n {
		t.Skipf("the temporary directory %s is already longer than %d bytes", dir, n)
	}
	dir = filepath.Join(dir, strings.Repeat("d", n-len(dir)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestListenSocket_LongDataDirectory: a socket path that fits the 107
// bytes of a unix socket is served, however long the temporary name it is
// first bound under would be, and it answers there.
func TestListenSocket_LongDataDirectory(t *testing.T) {
	path := filepath.Join(socketDir(t, maxSocketPath-len("/schedbot.sock")), "schedbot.sock")
	if len(path) != maxSocketPath {
		t.Fatalf("test path is %d bytes, want %d", len(path), maxSocketPath)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("listen on a %d-byte path: %v", len(path), err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, _ := io.ReadAll(c); string(b) != "hi" {
		t.Errorf("read %q from the socket, want hi", b)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket at %s: %v, %v; want mode 0600", path, fi, err)
	}
}

// TestListenSocket_PathTooLong: a path past the limit is refused naming
// the limit and server.socket, not with the kernel's "invalid argument".
func TestListenSocket_PathTooLong(t *testing.T) {
	path := filepath.Join(socketDir(t, maxSocketPath), "schedbot.sock")
	_, err := Listen(path)
	if err == nil || !strings.Contains(err.Error(), "server.socket") || !strings.Contains(err.Error(), "107") {
		t.Fatalf("listen on a %d-byte path: %v; want an error naming server.socket and the 107-byte limit", len(path), err)
	}
}
