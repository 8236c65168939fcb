package namenode

import (
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// The paths the Server answers (DESIGN.md, "NameNode-side HTTP API").
const (
	HeartbeatPath = reports.HeartbeatPath
	SlowPeersPath = "/slowpeers"
	JMXPath       = "/jmx"
	MetricsPath   = "/metrics"
	DataNodesPath = "/v1/datanodes"
)

// Server is the NameNode-side service: it ingests heartbeats into a
// Tracker and a DataNodes table and answers the HTTP API. It is safe for
// concurrent use. Build it with New, add other packages' routes with
// Handle and their metric families with AddMetrics, then Run (or Serve on
// a listener of your own, or use Handler with a server of your own and
// RunSteps for the periodic Step).
type Server struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	tracker *tracker.Tracker
	slowSet *tracker.SlowSet
	nodes   *DataNodes
	metrics *serverMetrics
	engine  *gin.Engine
	// authHash is sha256(AuthToken), compared in constant time against
	// the hash of the presented token; unused when AuthToken is empty.
	authHash [32]byte

	serving atomic.Bool
	addr    atomic.Pointer[string] // the address Serve listens on
}

var setGinMode sync.Once

// New returns a Server for cfg, or the error of cfg.Validate.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("namenode config: %w", err)
	}
	setGinMode.Do(func() { gin.SetMode(gin.ReleaseMode) })
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		now:     cfg.Now,
		tracker: tracker.New(cfg.ReportValidity()),
		slowSet: tracker.NewSlowSet(cfg.SlowSet),
		nodes:   NewDataNodes(cfg.DeadAfter()),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if cfg.AuthToken != "" {
		s.authHash = sha256.Sum256([]byte(cfg.AuthToken))
	}
	s.metrics = newServerMetrics()

	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	// Nothing stands in front of the service that it should believe:
	// the access log shows the peer address, not X-Forwarded-For.
	if err := e.SetTrustedProxies(nil); err != nil {
		return nil, fmt.Errorf("namenode: %w", err)
	}
	e.Use(s.accessLog, gin.CustomRecoveryWithWriter(nil, s.recovered), s.auth)
	e.NoRoute(func(c *gin.Context) { s.fail(c, http.StatusNotFound, "no such path") })
	e.NoMethod(func(c *gin.Context) { s.fail(c, http.StatusMethodNotAllowed, "method not allowed") })
	e.POST(HeartbeatPath, s.heartbeat)
	e.GET(SlowPeersPath, s.slowPeers)
	e.GET(JMXPath, s.jmx)
	e.GET(MetricsPath, s.serveMetrics)
	e.GET(DataNodesPath, s.dataNodes)
	s.engine = e
	return s, nil
}

// Handle serves h for requests of method (GET, POST, ...) to path, beside
// the Server's own routes; another package adds its routes this way (the
// HiveServer picker's /rest/hiveserver/send, for instance). They get what
// every route gets: the access log, panic recovery, the bearer-token check
// on every request that is not a GET, HEAD or OPTIONS, and the
// request-duration histogram, labelled with path. path is a pattern:
// ":name" matches one segment, "*name" the rest. Call Handle before
// Handler, Run or Serve; it panics once the Server serves, and for a path
// that is already taken.
func (s *Server) Handle(method, path string, h http.Handler) {
	if s.serving.Load() {
		panic("BUG: namenode.Server.Handle called after the server started serving")
	}
	s.engine.Handle(method, path, gin.WrapH(h))
}

// Handler returns the Server's HTTP handler. After it, Handle and
// AddMetrics panic.
func (s *Server) Handler() http.Handler {
	s.serving.Store(true)
	return s.engine
}

// Tracker returns the slow-peer tracker the Server feeds.
func (s *Server) Tracker() *tracker.Tracker { return s.tracker }

// DataNodes returns the Server's DataNode table.
func (s *Server) DataNodes() *DataNodes { return s.nodes }

// Config returns the Server's configuration.
func (s *Server) Config() Config { return s.cfg }

// SlowNodes returns the ids of the top MaxSlowPeerCollectNodes nodes of
// the slow set at now (most reporters first, then by name): the set to
// keep new work away from, as Hadoop's DatanodeManager.getSlowPeersUuidSet
// collects it for block placement, but with the hysteresis of
// Config.SlowSet.
func (s *Server) SlowNodes(now time.Time) []string {
	counts := s.updateSlowSet(now)
	slices.SortStableFunc(counts, func(a, b tracker.NodeCount) int { return b.Reporters - a.Reporters })
	var ids []string
	for _, c := range counts {
		if len(ids) < s.cfg.MaxSlowPeerCollectNodes && s.slowSet.Contains(c.Node) {
			ids = append(ids, c.Node)
		}
	}
	for _, n := range s.slowSet.Nodes() { // members in their quiet period
		if len(ids) < s.cfg.MaxSlowPeerCollectNodes && !slices.Contains(ids, n) {
			ids = append(ids, n)
		}
	}
	return ids
}

// updateSlowSet feeds the tracker's counts at now to the slow set and
// returns them.
func (s *Server) updateSlowSet(now time.Time) []tracker.NodeCount {
	counts := s.tracker.Counts(now)
	s.slowSet.Update(now, counts)
	return counts
}

// SlowHosts returns the distinct hosts (the node ids without port) of
// SlowNodes(now), in the same order. It fits the slowHosts argument of
// the HiveServer picker's handlers.
func (s *Server) SlowHosts(now time.Time) []string {
	var hosts []string
	for _, id := range s.SlowNodes(now) {
		if h := reports.Host(id); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// IsSlowHost reports whether one of SlowNodes(now) runs on host.
func (s *Server) IsSlowHost(now time.Time, host string) bool {
	return slices.Contains(s.SlowHosts(now), host)
}

// hostAndPort is the JMX HostAndPort: the address Serve listens on (else
// Config.Listen), with an unspecified host replaced by the host name.
func (s *Server) hostAndPort() string {
	addr := s.cfg.Listen
	if p := s.addr.Load(); p != nil {
		addr = *p
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			host = name
		}
	}
	return net.JoinHostPort(host, port)
}
