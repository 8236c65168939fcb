package namenode

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

// slowDisksReport is the JMX SlowDisksReport at now: the top
// MaxDisksToReport slow disks as Hadoop's Jackson writes them, or nil
// (null) when disks are off or none is slow, as
// SlowDiskTracker.getSlowDiskReportAsJsonString.
func (s *Server) slowDisksReport(now time.Time) any {
	if !s.cfg.Disks.Enabled() {
		return nil
	}
	top := s.disks.tracker.Top(now, s.cfg.Disks.MaxDisksToReport)
	if len(top) == 0 {
		return nil
	}
	return string(reportedDisksJSON(top))
}

// reportedDisksJSON is ds as Hadoop's Jackson writes them.
func reportedDisksJSON(ds []reports.ReportedDisk) []byte {
	b, err := jmx.MarshalJackson(ds)
	if err != nil {
		panic("BUG: namenode: encode slow-disk report: " + err.Error())
	}
	return b
}

// slowDisksView handles GET /slowdisks[?top=N]: the top N slow disks of
// the DataNodes' reports (default MaxDisksToReport), written as the JMX
// SlowDisksReport is, "[]" when there are none.
func (s *Server) slowDisksView(c *gin.Context) {
	n := s.cfg.Disks.MaxDisksToReport
	if q, ok := c.GetQuery("top"); ok {
		var err error
		if n, err = parseTop(q); err != nil {
			s.fail(c, http.StatusBadRequest, err.Error())
			return
		}
	}
	top := []reports.ReportedDisk{}
	if s.cfg.Disks.Enabled() {
		top = s.disks.tracker.Top(s.now(), n)
	}
	c.Data(http.StatusOK, "application/json", reportedDisksJSON(top))
}

// DiskFinding is one element of the GET /v1/slowdisks answer: a
// finding of the fleet view (disk.Finding) and whether its disk is in the
// slow set of disks.
type DiskFinding struct {
	Node      string  `json:"node"`
	Disk      string  `json:"disk"`
	Kind      string  `json:"kind"`
	Evidence  string  `json:"evidence"`
	Op        *string `json:"op"` // null for service evidence
	ValueMs   float64 `json:"valueMs"`
	MedianMs  float64 `json:"medianMs"`
	LimitMs   float64 `json:"upperLimitMs"`
	InSlowSet bool    `json:"inSlowSet"`
}

// diskFindings handles GET /v1/slowdisks: the findings of the last fleet
// view, each with whether its disk is in the slow set.
func (s *Server) diskFindings(c *gin.Context) {
	fs := s.disks.current().findings
	out := make([]DiskFinding, len(fs))
	for i, f := range fs {
		out[i] = DiskFinding{Node: f.Node, Disk: f.Disk, Kind: f.Kind, Evidence: string(f.Evidence),
			ValueMs: f.ValueMs, MedianMs: f.MedianMs, LimitMs: f.UpperLimitMs, InSlowSet: s.disks.slowSet.Contains(f.ID())}
		if f.Op != "" {
			out[i].Op = &fs[i].Op
		}
	}
	c.JSON(http.StatusOK, out)
}
