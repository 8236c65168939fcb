package discovery

import (
	"crypto/tls"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// etcdMaxReconnectDelay caps gRPC's wait between two attempts to reach an
// etcd server. gRPC's own cap is 120 s: a replica cut off from etcd for
// a minute then kept its dead connection, and claimed nothing but knew
// nothing, for up to two minutes after the network healed.
const etcdMaxReconnectDelay = 2 * time.Second

// etcdKeepAlive is how often an idle etcd connection is pinged, and how
// long a ping may go unanswered before the connection is dropped and
// dialed again: a partition (no reset, packets dropped) is then seen
// within about 15 s instead of TCP's retransmission timeout (minutes).
// gRPC raises a client's ping interval below 10 s to 10 s, and etcd's
// default --grpc-keepalive-min-time is 5 s. Pings go only while a call or
// a watch is open: etcd answers pings on an idle connection with GOAWAY
// "too_many_pings" (it does not permit them without a stream), and a
// replica and an agent always have a watch open.
const (
	etcdKeepAliveTime    = 10 * time.Second
	etcdKeepAliveTimeout = 5 * time.Second
)

// etcdDial is the configuration of one etcd client: the servers, the
// etcd user, TLS.
type etcdDial struct {
	servers        []string
	user, password string
	tls            *tls.Config   // nil: plain
	dialTimeout    time.Duration // of one connection attempt; 0: 5 s
}

// connect starts the client (lazily: calls wait for the connection).
func (c etcdDial) connect() (*clientv3.Client, error) {
	if c.dialTimeout == 0 {
		c.dialTimeout = 5 * time.Second
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: c.servers, DialTimeout: c.dialTimeout, Logger: zap.NewNop(),
		Username: c.user, Password: c.password, TLS: c.tls,
		DialKeepAliveTime: etcdKeepAliveTime, DialKeepAliveTimeout: etcdKeepAliveTimeout,
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: etcdMaxReconnectDelay},
			MinConnectTimeout: c.dialTimeout,
		})},
	})
	if err != nil {
		return nil, fmt.Errorf("connect to etcd %s: %w", strings.Join(c.servers, ","), err)
	}
	return cli, nil
}
