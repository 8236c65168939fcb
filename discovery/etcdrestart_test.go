package discovery

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// An etcd that dies and comes back on the same data: the watcher keeps
// the last set meanwhile, then follows what changed after the restart.
func TestEtcdWatcherSurvivesEtcdRestart(t *testing.T) {
	e := testenv.StartEtcd(t, nil)
	c := e.Client()
	defer c.Close()
	ns := "kyuubi"
	registerKyuubi(t, c, ns, "127.0.0.1:10009", "1.9.0", 0)
	w, changes := newTestEtcdWatcher(t, []string{e.Addr}, ns, nil)
	waitEtcdServers(t, w, changes, "127.0.0.1:10009")

	e.Kill()
	e.Start()
	if got := w.Servers(); len(got) != 1 {
		t.Fatalf("across the restart the watcher shows %q, want the last set", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Delete(ctx, fmt.Sprintf("/%s/serverUri=127.0.0.1:10009;version=1.9.0;sequence=%010d", ns, 0)); err != nil {
		t.Fatal(err)
	}
	registerKyuubi(t, c, ns, "127.0.0.1:10010", "1.9.0", 0)
	d := waitEtcdServers(t, w, changes, "127.0.0.1:10010")
	t.Logf("after etcd came back the watcher followed a change within %v", d)
}
