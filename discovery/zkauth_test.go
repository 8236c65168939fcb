package discovery

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

// lockedBuffer is a log that a test reads while a replica writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Reference: Kyuubi's ZookeeperACLProvider, READ_ACL_UNSAFE +
// CREATOR_ALL_ACL under kyuubi.ha.zookeeper.auth.type=DIGEST.
//
// With zk://USER:PASSWORD@ a replica authenticates with a digest and its
// znodes are readable by all and writable by that user only: a reader
// without credentials finds it, a client without them cannot register
// beside it, and a replica with the wrong password is refused and says
// so.
func TestReplicaZooKeeperDigest(t *testing.T) {
	u := testRegistry(t, ZooKeeperKind)
	u.User, u.Password = "slowpeer", "s3cret@/x"
	t.Cleanup(func() { // before testRegistry's: only the user may delete
		c := zkConnect(t, u.Servers, 10*time.Second, nil)
		defer c.Close()
		if err := c.AddAuth("digest", []byte(u.User+":"+u.Password)); err != nil {
			t.Error(err)
		}
		zkDeleteAll(c, u.Root)
	})
	var running atomic.Int32
	var overlap atomic.Bool
	r := startReplica(t, u, 9871, &running, &overlap)
	testenv.WaitFor(t, "the replica to lead", 20*time.Second, r.Leading)

	c := zkConnect(t, u.Servers, 10*time.Second, nil) // no credentials
	defer c.Close()
	children, _, err := c.Children(u.MembersPath())
	if err != nil || len(children) != 1 {
		t.Fatalf("a reader without credentials lists %v, %v", children, err)
	}
	// ZooKeeper shows the digest's hash only to a client with ADMIN
	// rights ("x" to others, ZOOKEEPER-1392).
	want := append(zk.WorldACL(zk.PermRead), zk.ACL{Perms: zk.PermAll, Scheme: "digest", ID: u.User + ":x"})
	for _, p := range []string{u.Root, u.MembersPath(), path.Join(u.MembersPath(), children[0]), u.LeaderPath()} {
		acl, _, err := c.GetACL(p)
		if err != nil || !slices.Equal(acl, want) {
			t.Errorf("ACL of %s: %v, %v; want %v", p, acl, err, want)
		}
	}
	if _, err := c.Create(path.Join(u.MembersPath(), "intruder"), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("a client without credentials registers: %v", err)
	}
	if err := c.Delete(path.Join(u.MembersPath(), children[0]), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("a client without credentials deletes a registration: %v", err)
	}

	reader, err := OpenRegistry(RegistryURL{Kind: u.Kind, Servers: u.Servers, Root: u.Root}, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ms, err := reader.Members(ctx); err != nil || len(ms) != 1 || ms[0].Server != "127.0.0.1:9871" {
		t.Errorf("members read without credentials: %+v, %v", ms, err)
	}

	// The wrong password is another identity, without rights here.
	var log lockedBuffer
	cfg := DefaultReplicaConfig()
	cfg.Registry, cfg.Timeout = u, 2*time.Second
	cfg.Registry.Password = "wrong"
	cfg.Self = Member{Server: "127.0.0.1:9872", Scheme: "http", Version: "test"}
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	bad, err := NewReplica(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, bad.Run)
	testenv.WaitFor(t, "the refused replica to say why", 20*time.Second, func() bool {
		return strings.Contains(log.String(), "level=WARN") && strings.Contains(log.String(), "not authenticated")
	})
	stop()
	if strings.Contains(log.String(), "wrong") || strings.Contains(log.String(), "s3cret") {
		t.Errorf("the log shows a password:\n%s", log.String())
	}
	if children, _, err := c.Children(u.MembersPath()); err != nil || len(children) != 1 {
		t.Errorf("registrations after the refused replica: %v, %v", children, err)
	}
}
