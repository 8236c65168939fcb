package namenode

import (
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/hosts"
	"github.com/slowpeer/slowpeer/jmx"
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
// Handle and their metric families with AddMetrics, then Run it: Run
// listens on Config.Listen, serves, runs every periodic step and returns
// once all of them have stopped.
//
// Three more entry points exist, each for a reason Run cannot serve:
// Serve is Run on a listener the caller opened, for a caller that needs
// the address before the service starts (port 0, an address to register
// with the other replicas); Handler gives the routes alone, without the
// periodic steps, for tests and benchmarks that drive Step, Diagnose and
// StepSuspects with their own clock; RunStateFile keeps the state file,
// which the caller starts only once it has restored the state
// (StartState) from another replica or from that file, a choice made
// outside the Server.
type Server struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	tracker *tracker.Tracker
	slowSet *tracker.SlowSet // nodes, fed by the diagnosis (slowset.go)
	// slowLinks holds the links the diagnosis finds, "link:a|b", once
	// confirmed (diagnosis.LinkConfirmer); nothing avoids them, the
	// metrics count them.
	slowLinks *tracker.SlowSet
	nodes     *DataNodes
	// decisions holds why each member is in the slow sets, their
	// histories, and logs their entries and exits (decisions.go).
	decisions *decisions
	// excluded is dfs.hosts.exclude as RefreshNodes last read it.
	excluded atomic.Pointer[hosts.Set]
	// saveState, when set (RunStateFile), writes the state file at once:
	// a forgotten DataNode leaves it before the answer.
	saveState atomic.Pointer[func() error]
	// changes counts the changes to the state besides heartbeat times
	// (a report, a node new, back, dead or gone, an import), so that
	// the state file is written only when it would differ.
	changes atomic.Uint64
	// restoring is true from BeginRestore until the state is in:
	// /readyz answers 503, and the API waits.
	restoring atomic.Bool
	metrics   *serverMetrics
	diag      *diagnoser // the diagnosis of the agents' peerLatencies
	disks     *disks     // slow disks (disks.go)
	fast      *fastPath  // the fast path (suspects.go)
	heavy     heavyWork  // turns of the long reads and jobs (heavy.go)
	engine    *gin.Engine
	// hostname is the beans' tag.Hostname; readRuntime reads the Go
	// runtime for the JvmMetrics bean (tests replace it).
	hostname    string
	readRuntime func() jmx.Runtime
	// authHash is sha256(AuthToken), compared in constant time against
	// the hash of the presented token; unused when AuthToken is empty.
	authHash [32]byte

	// ingest makes a heartbeat's admission checks and its changes to the
	// table and the tracker one step, so that a refused heartbeat changes
	// nothing.
	ingest sync.Mutex
	// registered collects the DataNodes that came up, for Step's log.
	registered nodeEvents

	serving atomic.Bool
	addr    atomic.Pointer[string]        // the address Serve listens on
	conns   atomic.Pointer[limitListener] // Serve's listener, for /metrics
	// heads are the paths with a HEAD route (most added with their GET).
	heads map[string]bool
}

var setGinMode sync.Once

// New returns a Server for cfg, or the error of cfg.Validate.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("namenode config: %w", err)
	}
	setGinMode.Do(func() { gin.SetMode(gin.ReleaseMode) })
	s := &Server{
		cfg: cfg,
		log: cfg.Logger,
		now: cfg.Now,
		tracker: tracker.NewLimited(cfg.ReportValidity(), tracker.Limits{
			MaxEntries:   cfg.MaxTrackerEntries,
			MaxSlowNodes: cfg.MaxSlowNodes,
		}),
		slowSet:   tracker.NewSlowSet(cfg.SlowSet),
		slowLinks: tracker.NewSlowSet(tracker.LinkSlowSetConfig(cfg.SlowSet)),
		nodes:     NewDataNodes(cfg.DeadAfter(), cfg.MaxDataNodes),
		heads:     make(map[string]bool),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.hostname, s.readRuntime = cfg.Hostname, jmx.ReadRuntime
	if s.hostname == "" {
		s.hostname, _ = os.Hostname() // none: the beans go without tag.Hostname
	}
	if cfg.AuthToken != "" {
		s.authHash = sha256.Sum256([]byte(cfg.AuthToken))
	}
	s.metrics = newServerMetrics()
	s.decisions = newDecisions(s.log)
	s.excluded.Store(&hosts.Set{})
	s.heavy = newHeavyWork()
	if err := s.newDiagnosis(); err != nil {
		return nil, err
	}
	s.newFastPath()
	var err error
	if s.disks, err = newDisks(cfg); err != nil {
		return nil, fmt.Errorf("namenode config: %w", err)
	}

	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	// Nothing stands in front of the service that it should believe:
	// the access log shows the peer address, not X-Forwarded-For.
	if err := e.SetTrustedProxies(nil); err != nil {
		return nil, fmt.Errorf("namenode: %w", err)
	}
	e.Use(s.prepare, s.accessLog, gin.CustomRecoveryWithWriter(nil, s.recovered), s.share, s.auth, s.waitRestore)
	e.NoRoute(func(c *gin.Context) { s.fail(c, http.StatusNotFound, "no such path") })
	e.NoMethod(func(c *gin.Context) { s.fail(c, http.StatusMethodNotAllowed, "method not allowed") })
	s.engine = e
	e.POST(HeartbeatPath, s.heartbeat)
	s.get(SlowPeersPath, s.slowPeers)
	s.get(JMXPath, s.heavyRoute(s.jmx))
	s.get(MetricsPath, s.heavyRoute(s.serveMetrics))
	s.get(DataNodesPath, s.heavyRoute(s.dataNodes))
	s.get(SlowNodesPath, s.slowNodes)
	s.get(StatePath, s.heavyRoute(s.serveState))
	s.get(SlowSetPath, s.heavyRoute(s.serveSlowSet))
	e.POST(RefreshPath, s.refreshNodes)
	e.POST(ForgetPath, s.forget)
	s.get(HealthzPath, s.healthz)
	s.get(ReadyzPath, s.readyz)
	s.AddMetrics(s.decisions.writeMetrics)
	s.get(SlowDisksPath, s.slowDisksView)
	s.get(DiskFindingsPath, s.diskFindings)
	s.get(SuspectsPath, s.heavyRoute(s.serveSuspects))
	s.AddMetrics(s.writeSuspectMetrics)
	return s, nil
}

// Handle serves h for requests of method (GET, POST, ...) to path, beside
// the Server's own routes; another package adds its routes this way (the
// HiveServer picker's /rest/hiveserver/send, for instance). path is a
// plain path, matched exactly: it starts with "/" and holds no ":" or
// "*"; HandlePrefix serves a whole subtree. The routes get what every
// route gets: the access log, panic recovery, the bearer-token check on
// every request that is not a GET, HEAD or OPTIONS, and the
// request-duration histogram, labelled with path. A GET route answers
// HEAD too, with the same handler (net/http drops the body); a HEAD route
// for a path that has its GET already is that one, and h is not used.
// Call Handle before Handler, Run or Serve; it panics once the Server
// serves, for a path that is not plain, and for a path already taken.
func (s *Server) Handle(method, path string, h http.Handler) {
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, ":*") {
		panic(fmt.Sprintf("BUG: namenode.Server.Handle: %q is not a plain path", path))
	}
	s.handle(method, path, h)
}

// HandlePrefix serves h for requests of method to prefix and every path
// below it, as Handle does for one path: prefix starts and ends with "/",
// holds no ":" or "*", and is not "/" itself (the Server's own routes are
// below it). The request-duration histogram labels the whole subtree
// with prefix. A path below prefix that Handle or the Server also serves
// must not be added.
func (s *Server) HandlePrefix(method, prefix string, h http.Handler) {
	if len(prefix) < 3 || !strings.HasPrefix(prefix, "/") || !strings.HasSuffix(prefix, "/") || strings.ContainsAny(prefix, ":*") {
		panic(fmt.Sprintf("BUG: namenode.Server.HandlePrefix: %q is not a plain prefix ending in /", prefix))
	}
	s.handle(method, prefix+prefixWildcard, h)
}

// prefixWildcard ends the gin pattern of a HandlePrefix route.
const prefixWildcard = "*rest"

// handle adds the route of the gin pattern path.
func (s *Server) handle(method, path string, h http.Handler) {
	if s.serving.Load() {
		panic("BUG: namenode.Server.Handle called after the server started serving")
	}
	switch method {
	case http.MethodGet:
		s.get(path, gin.WrapH(h))
	case http.MethodHead:
		if !s.heads[path] {
			s.engine.HEAD(path, gin.WrapH(h))
			s.heads[path] = true
		}
	default:
		s.engine.Handle(method, path, gin.WrapH(h))
	}
}

// get adds a GET route and, unless the path has one, the same for HEAD,
// as DESIGN.md wants: "HEAD works wherever GET does".
func (s *Server) get(path string, h gin.HandlerFunc) {
	s.engine.GET(path, h)
	if !s.heads[path] {
		s.engine.HEAD(path, h)
		s.heads[path] = true
	}
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
