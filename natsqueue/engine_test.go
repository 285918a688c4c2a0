package natsqueue

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestStoreOwner: a second Platform on a store in use fails at Open with
// the lock's reason; once the first is closed, the store opens again.
func TestStoreOwner(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("flock(2) only")
	}
	o := storeOptions(t)
	p, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(o)
	want := "natsqueue: store " + o.StoreDir + " is in use by another Platform (its lock file natsqueue.lock is held): resource temporarily unavailable"
	if err == nil || err.Error() != want {
		t.Errorf("second Open: %v, want %s", err, want)
	}
	_ = p.Close() // Close always returns nil
	p, err = Open(o)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	_ = p.Close() // Close always returns nil
}

// TestStoreUncreatable: a StoreDir that cannot be created fails at once
// with the OS's reason.
func TestStoreUncreatable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Open(Options{StoreDir: filepath.Join(file, "store")})
	want := "natsqueue: store: mkdir " + file + ": not a directory"
	if err == nil || err.Error() != want {
		t.Errorf("Open: %v, want %s", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failing took %v", d)
	}
}

// TestNoPortByDefault: the embedded server takes no TCP connection: Open
// adds no listening socket to the process. With a Port it listens on
// 127.0.0.1 only and refuses a client without the password.
func TestNoPortByDefault(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before := listening(t)
	p := openSingle(t)
	send(t, p, `1`, 0)
	after := listening(t)
	for _, a := range after {
		if !slices.Contains(before, a) {
			t.Errorf("Open added a listening socket: %s (before %v, after %v)", a, before, after)
		}
	}
	o := storeOptions(t)
	o.Port, o.PortUser, o.PortPassword = freePorts(t, 1)[0], "ops", "s3cret"
	q := openWith(t, o)
	send(t, q, `1`, 0)
	addr := fmt.Sprintf("127.0.0.1:%d", o.Port)
	if withPort := listening(t); !slices.Contains(withPort, addr) || len(withPort) != len(after)+1 {
		t.Errorf("with Port %d: listening %v", o.Port, withPort)
	}
	if nc, err := nats.Connect("nats://"+addr, nats.NoReconnect()); err == nil || !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("connect without credentials: %v", err)
		if nc != nil {
			nc.Close()
		}
	}
	nc, err := nats.Connect("nats://"+addr, nats.UserInfo("ops", "s3cret"))
	if err != nil {
		t.Fatalf("connect with credentials: %v", err)
	}
	nc.Close()
	for want, bad := range map[string]Options{
		"natsqueue: Options.Port needs PortUser and PortPassword":                     {StoreDir: o.StoreDir, Port: o.Port},
		"natsqueue: Options.Port is for the embedded server, not with URLs":           {URLs: []string{"nats://" + addr}, Port: 1, PortUser: "a", PortPassword: "b"},
		"natsqueue: Options.Port -1 is not a TCP port (1 to 65535, or 0 for none)":    {StoreDir: o.StoreDir, Port: -1, PortUser: "a", PortPassword: "b"},
		"natsqueue: Options.Port 65536 is not a TCP port (1 to 65535, or 0 for none)": {StoreDir: o.StoreDir, Port: 65536, PortUser: "a", PortPassword: "b"},
	} {
		if _, err := Open(bad); err == nil || err.Error() != want {
			t.Errorf("Open(%+v): %v, want %s", bad, err, want)
		}
	}
}

// listening is the local addresses of this process's listening TCP
// sockets, sorted, from /proc.
func listening(t *testing.T) []string {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		link, _ := os.Readlink("/proc/self/fd/" + fd.Name())
		if in, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(in, "]")] = true
		}
	}
	var addrs []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		addrs = append(addrs, listeners(t, table, inodes)...)
	}
	slices.Sort(addrs)
	return addrs
}

// listeners reads a /proc/net/tcp table: the local addresses of the
// sockets in LISTEN state (0A) whose inode is in inodes.
func listeners(t *testing.T, table string, inodes map[string]bool) []string {
	f, err := os.Open(table)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var addrs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 9 && fields[3] == "0A" && inodes[fields[9]] {
			addrs = append(addrs, hexAddr(fields[1]))
		}
	}
	return addrs
}

// hexAddr is /proc's "0100007F:1F90" as "127.0.0.1:8080" (IPv4; IPv6 as
// its hex).
func hexAddr(s string) string {
	ip, port, _ := strings.Cut(s, ":")
	var p int
	_, _ = fmt.Sscanf(port, "%X", &p) // /proc writes hex: a bad field gives 0, a wrong address the test reports
	if len(ip) != 8 {
		return fmt.Sprintf("[%s]:%d", ip, p)
	}
	var b [4]int
	for i := range b {
		_, _ = fmt.Sscanf(ip[6-2*i:8-2*i], "%X", &b[i]) // as the port
	}
	return fmt.Sprintf("%d.%d.%d.%d:%d", b[0], b[1], b[2], b[3], p)
}
