package datanode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/jmx"
)

// diskHadoop is the disk source of an agent beside a Hadoop DataNode
// (-hadoop-jmx): every interval it reads the DataNode's SlowDisks (of the
// DataNodeInfo bean) and its volumes' beans (DataNodeVolume-*), and
// records, for every volume the agent knows, the operations the DataNode
// counted since the read before (the growth of …NumOps) at their mean
// time (…AvgTime) for METADATA, READ and WRITE.
//
// The DataNode has these figures only when its disk statistics are on
// (dfs.datanode.fileio.profiling.sampling.percentage > 0); SlowDisks is
// null otherwise, which is logged once when it begins and once when it
// ends, and nothing is recorded. Changes of the DataNode's own verdict,
// SlowDisks, are logged. diskHadoop's methods belong to one goroutine.
type diskHadoop struct {
	infoURL, volumesURL string
	client              *http.Client
	interval            time.Duration
	rec                 *disk.Recorder
	volumes             []string // the agent's, cleaned
	counters            *counters
	log                 *slog.Logger

	last map[string][disk.NumOps]int64 // NumOps at the read before, per volume
	off  error                         // the lasting condition logged, nil if none
	slow []string                      // the DataNode's SlowDisks at the read before
}

func newDiskHadoop(raw string, client *http.Client, interval time.Duration, rec *disk.Recorder, c *counters, log *slog.Logger) *diskHadoop {
	h := &diskHadoop{infoURL: jmxQueryURL(raw, jmx.DataNodeInfoBean), volumesURL: jmxQueryURL(raw, jmx.DataNodeVolumesQuery),
		client: client, interval: interval, rec: rec, counters: c, log: log, last: map[string][disk.NumOps]int64{}}
	for _, v := range rec.Volumes() {
		h.volumes = append(h.volumes, v.Path)
	}
	return h
}

// jmxQueryURL returns raw (a -hadoop-jmx URL) with path /jmx when it has
// none and the query qry=bean in place of any it has.
func jmxQueryURL(raw, bean string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/jmx"
	}
	u.RawQuery = "qry=" + bean // unencoded, as Hadoop's own tools write it
	return u.String()
}

// run reads at once and then every interval until ctx is done.
func (h *diskHadoop) run(ctx context.Context) {
	scrapeEvery(ctx, h.interval, func(rctx context.Context) error {
		err := h.scrape(rctx, time.Now())
		if err != nil && ctx.Err() == nil {
			h.counters.jmxErrors.Add(1)
			h.log.Warn("reading the Hadoop DataNode's volume metrics failed", slog.Any("err", err))
		}
		return err
	})
}

// scrape reads the two documents once and records what grew since the
// read before, at now. A lasting condition of the DataNode is not an
// error: it is logged when it begins.
func (h *diskHadoop) scrape(ctx context.Context, now time.Time) error {
	data, err := getJMX(ctx, h.client, h.infoURL)
	if err != nil {
		return err
	}
	beans, err := jmx.Parse(data)
	if err != nil {
		return fmt.Errorf("parse %s: %w", h.infoURL, err)
	}
	slow, err := jmx.DataNodeSlowDisks(beans)
	if errors.Is(err, jmx.ErrDiskStatsDisabled) || errors.Is(err, jmx.ErrNoSlowDisks) {
		if h.off == nil || h.off.Error() != err.Error() {
			h.log.Warn("the Hadoop DataNode keeps no disk statistics; its volumes are measured by the agent alone (logged once)",
				slog.String("url", h.infoURL), slog.Any("read", err))
		}
		h.off = err
		clear(h.last)
		return nil
	}
	if err != nil {
		return err
	}
	if h.off != nil {
		h.log.Info("the Hadoop DataNode keeps disk statistics again", slog.String("url", h.infoURL))
		h.off = nil
	}
	for i := range slow {
		slow[i] = filepath.Clean(slow[i])
	}
	slices.Sort(slow)
	if !slices.Equal(slow, h.slow) {
		h.log.Info("the Hadoop DataNode's slow disks changed", slog.Any("slowDisks", slow), slog.Any("before", h.slow))
		h.slow = slow
	}
	if data, err = getJMX(ctx, h.client, h.volumesURL); err != nil {
		return err
	}
	if beans, err = jmx.Parse(data); err != nil {
		return fmt.Errorf("parse %s: %w", h.volumesURL, err)
	}
	vols, err := jmx.DataNodeVolumes(beans)
	if err != nil {
		return err
	}
	h.counters.jmxScrapes.Add(1)
	for _, v := range vols {
		path := filepath.Clean(v.Volume)
		if !slices.Contains(h.volumes, path) {
			continue
		}
		rates := [disk.NumOps]jmx.VolumeRate{disk.Metadata: v.Metadata, disk.Read: v.Read, disk.Write: v.Write}
		last, seen := h.last[path]
		var now64 [disk.NumOps]int64
		for op, r := range rates {
			now64[op] = r.NumOps
			if n := r.NumOps - last[op]; seen && n > 0 {
				total := time.Duration(r.AvgTimeMs * float64(n) * float64(time.Millisecond))
				h.rec.AddManyAt(now, path, disk.Op(op), total, n)
			}
		}
		h.last[path] = now64
	}
	return nil
}
