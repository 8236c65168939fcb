package sqlstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// killHelperEnv, set to a store DSN, turns TestKillHelperProcess into the
// service that TestSIGKILL kills.
const killHelperEnv = "SLOWPEER_HIVESERVER_KILL_HELPER"

// TestKillHelperProcess is not a test: run by TestSIGKILL in a child
// process, it serves the picker's routes on 127.0.0.1 until it is killed.
func TestKillHelperProcess(t *testing.T) {
	dsn := os.Getenv(killHelperEnv)
	if dsn == "" {
		t.Skip("the service that TestSIGKILL starts and kills")
	}
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	p, err := hiveserver.New(hiveserver.DefaultConfig(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	go p.Run(ctx) // until SIGKILL
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(hiveserver.SendPath, p.SendHandler())
	mux.Handle(hiveserver.ServersPath, p.ServersHandler(func() []string { return nil }))
	fmt.Printf("LISTEN %s\n", ln.Addr())
	t.Fatal(http.Serve(ln, mux)) // until SIGKILL
}

// sent is one event a client sent, and whether it got its 200.
type sent struct {
	e  hiveserver.Event
	ok bool
}

// TestSIGKILL ingests events through real HTTP into a child process, kills
// it with SIGKILL in the middle of the load, and checks on the same store
// that every event answered 200 is there and that the running counts are
// what they were before the kill, plus exactly what the events stored
// since then changed.
func TestSIGKILL(t *testing.T) {
	if os.Getenv(killHelperEnv) != "" {
		t.Skip("in the helper process")
	}
	forEachStore(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKillHelperProcess$")
		child.Env = append(os.Environ(), killHelperEnv+"="+dsn)
		var stderr bytes.Buffer
		child.Stderr = &stderr
		out, err := child.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		defer child.Process.Kill()
		var addr string
		for sc := bufio.NewScanner(out); addr == "" && sc.Scan(); {
			addr, _ = strings.CutPrefix(sc.Text(), "LISTEN ")
		}
		if addr == "" {
			t.Fatalf("helper did not start; stderr:\n%s", stderr.String())
		}
		base := "http://" + addr
		client := &http.Client{Timeout: 30 * time.Second}
		send := func(e hiveserver.Event) bool {
			resp, err := client.Post(base+hiveserver.SendPath, formType, strings.NewReader(e.Form().Encode()))
			if err != nil {
				return false
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode == 200
		}
		servers := []string{"hs0:10000", "hs1:10000", "hs2:10000", "hs3:10000"}
		startMs := time.Now().Add(-time.Minute).UnixMilli()

		// Phase A, quiet: 200 statements start, all answered.
		var phaseA []hiveserver.Event
		for i := range 200 {
			phaseA = append(phaseA, storetest.Event(servers[i%4], hiveserver.PreExec, fmt.Sprintf("a%d", i), "", startMs+int64(i)))
		}
		parallel(8, len(phaseA), func(i int) {
			if !send(phaseA[i]) {
				t.Errorf("phase A event %d not stored", i)
			}
		})
		if t.Failed() {
			t.FailNow()
		}
		runningA := map[string]int{}
		resp, err := client.Get(base + hiveserver.ServersPath)
		if err != nil {
			t.Fatal(err)
		}
		var list []hiveserver.Status
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range list {
			runningA[st.Server] = st.Running
		}
		if runningA["hs0:10000"] != 50 {
			t.Fatalf("before the kill: %+v", list)
		}

		// Phase B, under load: statements start and phase A's end, from 8
		// clients at once; SIGKILL after the 300th 200.
		var (
			mu     sync.Mutex
			phaseB []sent
			oks    atomic.Int64
			killed = make(chan struct{})
			kill   sync.Once
			next   atomic.Int64
		)
		parallel(8, 8, func(int) {
			for {
				i := int(next.Add(1)) - 1
				var e hiveserver.Event
				if i%2 == 0 && i/2 < len(phaseA) {
					e = phaseA[i/2]
					e.Hook, e.TimeMs = hiveserver.PostExec, e.TimeMs+5000
				} else {
					e = storetest.Event(servers[i%4], hiveserver.PreExec, fmt.Sprintf("b%d", i), "", startMs+int64(i))
				}
				ok := send(e)
				mu.Lock()
				phaseB = append(phaseB, sent{e, ok})
				mu.Unlock()
				if !ok {
					select {
					case <-killed:
						return
					default:
						t.Errorf("event %d refused before the kill", i)
						return
					}
				}
				if oks.Add(1) == 300 {
					kill.Do(func() {
						child.Process.Signal(syscall.SIGKILL)
						close(killed)
					})
				}
			}
		})
		child.Wait()
		if oks.Load() < 300 {
			t.Fatalf("only %d events stored before the kill", oks.Load())
		}

		// Restart on the same store.
		s := openStore(t, dsn)
		p, _ := storetest.OpenPicker(t, s)
		want := map[string]int{}
		for k, v := range runningA {
			want[k] = v
		}
		stored := 0
		for _, b := range phaseB {
			q, found, err := s.Lookup(ctx, b.e.Server, b.e.QueryID)
			if err != nil {
				t.Fatal(err)
			}
			in := found && (b.e.Hook == hiveserver.PreExec && q.PreTimeMs == b.e.TimeMs || b.e.Hook == hiveserver.PostExec && q.PostTimeMs == b.e.TimeMs)
			if b.ok && !in {
				t.Errorf("event answered 200 is lost: %+v (row %+v, %v)", b.e, q, found)
			}
			if in {
				stored++
				if b.e.Hook == hiveserver.PreExec {
					want[b.e.Server]++
				} else {
					want[b.e.Server]--
				}
			}
		}
		got := map[string]int{}
		for _, st := range p.Servers(time.Now(), nil) {
			got[st.Server] = st.Running
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("running after the restart %v, want %v (before the kill %v)", got, want, runningA)
		}
		t.Logf("%d events answered 200 before SIGKILL, %d sent in phase B, %d of them stored", oks.Load(), len(phaseB), stored)
	})
}

// parallel runs f(0..n-1) on workers goroutines and waits.
func parallel(workers, n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}
