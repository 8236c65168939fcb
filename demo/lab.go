package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/netlab"
)

// The ports of the lab's hosts: each host has an address of its own, so
// every agent and the service listen on the usual ports.
const (
	labServicePort = 9871
	labDataPort    = 9866
)

// newLabDemo builds the demo of a kernel-made fault: a network lab of one
// host for the service (host 0) and one for each agent (agent i on host
// i+1), the fault injected on the slow agent's host, and a listener on
// loopback relayed to the service so that the printed URLs work from this
// machine. Namespaces a crashed earlier run left are removed first; the
// lab is removed when the demo ends, or here on error.
func newLabDemo(ctx context.Context, d *demo, stderr io.Writer) (_ *demo, err error) {
	f := d.cfg
	if err := netlab.Check(); err != nil {
		if f.Fault.lab == "" {
			return nil, fmt.Errorf("demo -lab: %w", err)
		}
		return nil, fmt.Errorf("demo -fault %s: %w", f.Fault, err)
	}
	if removed, err := netlab.CleanStale(); err != nil {
		return nil, fmt.Errorf("demo: remove the namespaces of an earlier run: %w", err)
	} else if len(removed) > 0 {
		d.log = slog.New(slog.NewTextHandler(stderr, nil))
		d.log.Info("removed the namespaces an earlier run left", slog.Any("namespaces", removed))
	}
	lab, err := netlab.Create(ctx, f.DataNodes+1)
	if err != nil {
		return nil, fmt.Errorf("demo -fault %s: %w", f.Fault, err)
	}
	var lns []net.Listener
	defer func() {
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			err = errors.Join(err, lab.Close())
		}
	}()
	listen := func(host, port int) (net.Listener, error) {
		addr := net.JoinHostPort(lab.Host(host).Addr.String(), strconv.Itoa(port))
		ln, err := lab.Listen(host, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("demo: listen on %s in the lab: %w", addr, err)
		}
		lns = append(lns, ln)
		return ln, nil
	}
	if d.ln, err = listen(0, labServicePort); err != nil {
		return nil, err
	}
	if d.forward, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("demo: listen on loopback: %w", err)
	}
	lns = append(lns, d.forward)
	d.base = "http://" + d.forward.Addr().String()
	if err := d.newService(stderr); err != nil {
		return nil, err
	}
	data := make([]net.Listener, f.DataNodes)
	for i := range data {
		if data[i], err = listen(i+1, labDataPort); err != nil {
			return nil, err
		}
	}
	inLab := "http://" + d.ln.Addr().String()
	if err := d.newAgents(inLab, data, stderr, func(i int, cfg *datanode.Config) {
		host := i + 1
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			return lab.DialContext(ctx, host, network, addr)
		}
		cfg.Dial = dial
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy, tr.DialContext, tr.MaxIdleConnsPerHost = nil, dial, 2
		cfg.HTTPClient = &http.Client{Transport: tr}
	}); err != nil {
		return nil, err
	}
	d.lab = lab
	if f.Fault.lab == "" {
		return d, nil // -lab without a kernel-made fault
	}
	fault := netlab.Fault{Kind: f.Fault.lab, Host: f.Slow + 1, BitsPerSecond: f.Fault.rate}
	d.slowID = data[f.Slow].Addr().String()
	if f.Fault.lab == netlab.FaultPairRate {
		peer := (f.Slow + 1) % f.DataNodes
		fault.Peer = peer + 1
		d.peerID = data[peer].Addr().String()
	}
	if err := lab.Inject(ctx, fault); err != nil {
		return nil, fmt.Errorf("demo -fault %s: %w (the kernel needs the htb qdisc and the u32 filter: sch_htb, cls_u32)", f.Fault, err)
	}
	return d, nil
}
