package datanode

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/disk"
)

// Reference: StorageLocation.parse ("[TYPE]location", the type in any
// case, DISK by default) and DataNode.getStorageLocations (trimmed,
// comma-separated).
func TestParseDataDirs(t *testing.T) {
	f := func(value string, want ...disk.Volume) {
		t.Helper()
		got, err := ParseDataDirs(value)
		if err != nil {
			t.Fatalf("ParseDataDirs(%q): %v", value, err)
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseDataDirs(%q) = %+v\nwant %+v", value, got, want)
		}
	}
	vol := func(path, typ string) disk.Volume { return disk.Volume{Path: path, StorageType: typ} }
	f("/data/1", vol("/data/1", "DISK"))
	f(" [SSD]file:///data/1 , [disk]/data/2/,[]/data/3,,[ARCHIVE] file:/data/4",
		vol("/data/1", "SSD"), vol("/data/2", "DISK"), vol("/data/3", "DISK"), vol("/data/4", "ARCHIVE"))
	f("file://localhost/data/1", vol("/data/1", "DISK"))
	f("[PROVIDED]s3a://bucket/x,/data/1", vol("/data/1", "DISK"))
	f("[ram_disk]/mnt/ram,[NVDIMM]/pmem", vol("/mnt/ram", "RAM_DISK"), vol("/pmem", "NVDIMM"))
	f("")
	f(" , ")
}

func TestParseDataDirsRejects(t *testing.T) {
	f := func(value, want string) {
		t.Helper()
		_, err := ParseDataDirs(value)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDataDirs(%q) = %v, want an error containing %q", value, err, want)
		}
	}
	f("[FLOPPY]/data/1", `unknown storage type "FLOPPY"`)
	f("hdfs://nn/data", `scheme "hdfs"`)
	f("file://otherhost/data", `host "otherhost"`)
	f("data/1", "not an absolute path")
	f("/data/1,/data/1/", "/data/1 is listed twice")
	f("/data/\x01", "control character")
}

func FuzzParseDataDirs(f *testing.F) {
	f.Add("[SSD]file:///data/1,/data/2")
	f.Add("[]x,,[PROVIDED]s3a://b/c")
	f.Fuzz(func(t *testing.T, value string) {
		vols, err := ParseDataDirs(value)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, v := range vols {
			if !filepath.IsAbs(v.Path) || filepath.Clean(v.Path) != v.Path || seen[v.Path] {
				t.Fatalf("ParseDataDirs(%q) gave volume %q", value, v.Path)
			}
			seen[v.Path] = true
		}
	})
}

func TestValidateVolumes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f := func(vols []disk.Volume, want string) {
		t.Helper()
		cfg := DefaultConfig()
		cfg.ID, cfg.NameNodes, cfg.Volumes = "127.0.0.1:9866", []string{"http://127.0.0.1:1"}, vols
		err := cfg.Validate()
		if want == "" {
			if err != nil {
				t.Errorf("Validate(%v) = %v", vols, err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%v) = %v, want an error containing %q", vols, err, want)
		}
	}
	f([]disk.Volume{{Path: dir}}, "")
	f([]disk.Volume{{Path: filepath.Join(dir, "missing")}}, "no such file or directory")
	f([]disk.Volume{{Path: file}}, "not a directory")
	f([]disk.Volume{{Path: dir}, {Path: dir}}, "listed twice")
	f([]disk.Volume{{Path: "relative"}}, "not an absolute path")
}
