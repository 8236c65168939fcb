package datanode

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
)

// DataDirKey is Hadoop's list of a DataNode's volumes: the agent measures
// each (flag -volumes, which wins).
const DataDirKey = "dfs.datanode.data.dir"

// StorageTypes are Hadoop's StorageType names, as a "[TYPE]" prefix of an
// entry of dfs.datanode.data.dir gives them (in any case of letters).
var StorageTypes = []string{"RAM_DISK", "SSD", "DISK", "ARCHIVE", "PROVIDED", "NVDIMM"}

// storagePrefix is Hadoop's StorageLocation pattern: "[TYPE]location".
var storagePrefix = regexp.MustCompile(`^\[(\w*)\](.+)$`)

// ParseDataDirs reads a value of dfs.datanode.data.dir as Hadoop's
// StorageLocation.parse does: comma-separated entries, each trimmed and
// empty ones skipped, each an optional "[TYPE]" (a StorageType, any case;
// DISK when absent or empty) and a local path or a file: URI
// ("[SSD]file:///data/1", "/data/2"). PROVIDED entries name remote
// storage, not a local disk, and are left out. It returns an error naming
// the entry for an unknown StorageType, a URI of another scheme, a path
// that is not absolute, or a volume listed twice. The paths are cleaned
// ("/data/1/" is "/data/1"); the kinds are not filled in.
func ParseDataDirs(value string) ([]disk.Volume, error) {
	var vols []disk.Volume
	for raw := range strings.SplitSeq(value, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		v, err := parseDataDir(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", DataDirKey, reports.Clip(raw), err)
		}
		if v.StorageType == "PROVIDED" {
			continue
		}
		if slices.ContainsFunc(vols, func(o disk.Volume) bool { return o.Path == v.Path }) {
			return nil, fmt.Errorf("%s: %s is listed twice", DataDirKey, v.Path)
		}
		vols = append(vols, v)
	}
	return vols, nil
}

func parseDataDir(raw string) (disk.Volume, error) {
	v := disk.Volume{StorageType: disk.DefaultStorageType}
	location := raw
	if m := storagePrefix.FindStringSubmatch(raw); m != nil {
		location = strings.TrimSpace(m[2])
		if m[1] != "" {
			t := strings.ToUpper(m[1])
			if !slices.Contains(StorageTypes, t) {
				return v, fmt.Errorf("unknown storage type %q (want one of %s)", m[1], strings.Join(StorageTypes, ", "))
			}
			v.StorageType = t
		}
	}
	if v.StorageType == "PROVIDED" {
		return v, nil // remote storage: not measured, whatever its URI
	}
	path := location
	if strings.Contains(location, ":") {
		u, err := url.Parse(location)
		if err != nil {
			return v, fmt.Errorf("not a path or a file: URI: %w", err)
		}
		if u.Scheme != "file" {
			return v, fmt.Errorf("scheme %q: a volume is a local directory (file:)", u.Scheme)
		}
		if u.Host != "" && u.Host != "localhost" {
			return v, fmt.Errorf("host %q: a volume is a local directory", u.Host)
		}
		path = u.Path
	}
	if !filepath.IsAbs(path) {
		return v, errors.New("not an absolute path")
	}
	v.Path = filepath.Clean(path)
	if err := reports.ValidateDisk(v.Path); err != nil {
		return v, err
	}
	return v, nil
}

// validateDisks checks the volumes and the disk keys.
func (c Config) validateDisks() error {
	seen := map[string]bool{}
	for _, v := range c.Volumes {
		if err := reports.ValidateDisk(v.Path); err != nil || !filepath.IsAbs(v.Path) {
			return fmt.Errorf("volume %q: not an absolute path", reports.Clip(v.Path))
		}
		if seen[v.Path] {
			return fmt.Errorf("volume %s is listed twice", v.Path)
		}
		seen[v.Path] = true
	}
	if len(c.Volumes) > reports.MaxDisks {
		return fmt.Errorf("%d volumes, at most %d", len(c.Volumes), reports.MaxDisks)
	}
	if err := checkVolumes(c.Volumes); err != nil {
		return err
	}
	switch {
	case c.MinOutlierDetectionDisks < 1:
		return fmt.Errorf("%s: %d is less than 1", MinOutlierDetectionDisksKey, c.MinOutlierDetectionDisks)
	case c.SlowDiskLowThreshold < 0:
		return fmt.Errorf("%s: %v is negative", SlowDiskLowThresholdKey, c.SlowDiskLowThreshold)
	case c.DiskMinSamples < 0:
		return fmt.Errorf("%s: %d is negative", DiskMinSamplesKey, c.DiskMinSamples)
	case !(c.DiskBusyUtilization > 0 && c.DiskBusyUtilization <= 1):
		return fmt.Errorf("%s: %v is not in (0, 1]", DiskBusyUtilizationKey, c.DiskBusyUtilization)
	case c.DiskStatsInterval <= 0:
		return fmt.Errorf("%s: %v is not positive", DiskStatsIntervalKey, c.DiskStatsInterval)
	case c.DiskProbeInterval < 0:
		return fmt.Errorf("%s: %v is negative", DiskProbeIntervalKey, c.DiskProbeInterval)
	case c.DiskProbeInterval > 0 && (c.DiskProbeBudget <= 0 || c.DiskProbeBudget > time.Second):
		return fmt.Errorf("%s: %v is not in (0, 1s]", DiskProbeBudgetKey, c.DiskProbeBudget)
	}
	return nil
}

// checkVolumes reports the first volume that is not an existing directory.
func checkVolumes(vols []disk.Volume) error {
	for _, v := range vols {
		st, err := os.Stat(v.Path)
		if err != nil {
			return fmt.Errorf("volume %s: %w", v.Path, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("volume %s: not a directory", v.Path)
		}
	}
	return nil
}
