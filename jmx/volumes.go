package jmx

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DataNodeVolumeBeanPrefix starts the name of a DataNode volume's bean,
// DataNodeVolumeMetrics' metrics2 source "DataNodeVolume-" + the volume's
// directory (its ':' replaced by '-'), e.g.
// "Hadoop:service=DataNode,name=DataNodeVolume-/data/1".
const DataNodeVolumeBeanPrefix = "Hadoop:service=DataNode,name=DataNodeVolume-"

// DataNodeVolumesQuery is the qry of JMXJsonServlet that selects every
// volume's bean.
const DataNodeVolumesQuery = DataNodeVolumeBeanPrefix + "*"

// SlowDisks is the DataNodeInfoBean attribute that lists the volumes the
// DataNode found slow.
const SlowDisks = "SlowDisks"

// ErrDiskStatsDisabled is the error of DataNodeSlowDisks for a SlowDisks
// of null: the DataNode keeps no disk statistics
// (dfs.datanode.fileio.profiling.sampling.percentage is 0, Hadoop's
// default), and its volume beans' rates stay at zero.
var ErrDiskStatsDisabled = errors.New(SlowDisks + " is null: the DataNode keeps no disk statistics " +
	"(dfs.datanode.fileio.profiling.sampling.percentage is 0)")

// ErrNoSlowDisks is the error of DataNodeSlowDisks for a DataNodeInfo
// bean without SlowDisks: a DataNode older than HDFS-11461.
var ErrNoSlowDisks = errors.New("bean " + DataNodeInfoBean + " has no " + SlowDisks +
	": a DataNode without disk statistics (older than HDFS-11461)")

// DataNodeSlowDisks reads SlowDisks of the DataNodeInfo bean
// (DataNode.getSlowDisks): a string holding a JSON array of the slow
// volumes' base paths, as Jetty's JSON writes the key set of
// DataNodeDiskMetrics' outliers, e.g. ["/data/3/"]. It returns them as
// written; ErrNoDataNodeInfo, ErrNoSlowDisks or ErrDiskStatsDisabled
// (wrapped) when the document cannot say, and an error for a value that
// is not a string holding an array of non-empty strings.
func DataNodeSlowDisks(beans []Bean) ([]string, error) {
	b, ok := Find(beans, DataNodeInfoBean)
	if !ok {
		return nil, fmt.Errorf("read slow disks: %w", ErrNoDataNodeInfo)
	}
	v, ok := b.Attr(SlowDisks)
	switch {
	case !ok:
		return nil, fmt.Errorf("read slow disks: %w", ErrNoSlowDisks)
	case v == nil:
		return nil, fmt.Errorf("read slow disks: %w", ErrDiskStatsDisabled)
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("read slow disks: %s is %s, not a string holding JSON", SlowDisks, kind(v))
	}
	var disks []string
	if err := decodeOne(s, &disks); err != nil || disks == nil {
		return nil, fmt.Errorf("read slow disks: %s is not a JSON array of strings", SlowDisks)
	}
	for _, d := range disks {
		if d == "" || strings.ContainsFunc(d, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return nil, fmt.Errorf("read slow disks: %s holds the volume %s", SlowDisks, strconv.Quote(d))
		}
	}
	return disks, nil
}

// VolumeRate is one MutableRate of a volume's bean: the operations counted
// since the DataNode started (…NumOps) and their mean time in milliseconds
// over the metrics system's last period (…AvgTime).
type VolumeRate struct {
	NumOps    int64
	AvgTimeMs float64
}

// VolumeMetrics is what a DataNode's bean tells of one volume.
type VolumeMetrics struct {
	// Volume is the volume's directory, from the bean's name.
	Volume string
	// Metadata, Read and Write are the MetadataOperationRate, ReadIoRate
	// and WriteIoRate of DataNodeVolumeMetrics, the three figures
	// DataNodeDiskMetrics tests.
	Metadata, Read, Write VolumeRate
}

// The attributes of a volume's bean, MutableRate's "<Name>NumOps" and
// "<Name>AvgTime" for the fields metadataOperationRate, readIoRate and
// writeIoRate of DataNodeVolumeMetrics.
var volumeRates = [3]string{"MetadataOperationRate", "ReadIoRate", "WriteIoRate"}

// DataNodeVolumes reads every DataNodeVolume-* bean of a DataNode's
// document, in document order. A bean without one of the three rates, or
// with a count that is not a non-negative integer or a mean that is not a
// finite non-negative number (a bare NaN of a rate with no samples yet is
// read as no figure: 0 operations), is an error naming it; no bean is not
// an error.
func DataNodeVolumes(beans []Bean) ([]VolumeMetrics, error) {
	var out []VolumeMetrics
	for _, b := range beans {
		vol, ok := strings.CutPrefix(b.Name, DataNodeVolumeBeanPrefix)
		if !ok {
			continue
		}
		if vol == "" {
			return nil, fmt.Errorf("read volume metrics: bean %q names no volume", b.Name)
		}
		m := VolumeMetrics{Volume: vol}
		for i, dst := range []*VolumeRate{&m.Metadata, &m.Read, &m.Write} {
			r, err := volumeRate(b, volumeRates[i])
			if err != nil {
				return nil, fmt.Errorf("read volume metrics: bean %q: %w", b.Name, err)
			}
			*dst = r
		}
		out = append(out, m)
	}
	return out, nil
}

func volumeRate(b Bean, name string) (VolumeRate, error) {
	nv, ok1 := b.Attr(name + "NumOps")
	av, ok2 := b.Attr(name + "AvgTime")
	if !ok1 || !ok2 {
		return VolumeRate{}, fmt.Errorf("no %sNumOps and %sAvgTime", name, name)
	}
	n, err := jsonNumber(nv)
	if err != nil || n < 0 || n != math.Trunc(n) || n > 1<<62 {
		return VolumeRate{}, fmt.Errorf("%sNumOps is not a count", name)
	}
	avg, err := jsonNumber(av)
	switch {
	case errors.Is(err, errNaN):
		return VolumeRate{}, nil
	case err != nil || math.IsInf(avg, 0) || avg < 0:
		return VolumeRate{}, fmt.Errorf("%sAvgTime is not a finite non-negative number", name)
	}
	return VolumeRate{NumOps: int64(n), AvgTimeMs: avg}, nil
}

var errNaN = errors.New("NaN")

// jsonNumber reads a number attribute as Parse leaves it, a json.Number,
// which may be a bare NaN or infinity of Hadoop's (errNaN for a NaN).
func jsonNumber(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s, not a number", kind(v))
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err == nil && math.IsNaN(f) {
		return 0, errNaN
	}
	return f, err
}
