package jmx

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t testing.TB, name string) []Bean {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	beans, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return beans
}

// Reference: DataNodeVolumeMetrics (MutableRate metadataOperationRate,
// readIoRate, writeIoRate, published as <Name>NumOps and <Name>AvgTime)
// and DataNodeVolumeMetrics.create (the bean "DataNodeVolume-" + path).
func TestDataNodeVolumes(t *testing.T) {
	got, err := DataNodeVolumes(parseFile(t, "../datanode/testdata/dn-volumes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d volumes, want 5", len(got))
	}
	want := VolumeMetrics{Volume: "/data/3", Metadata: VolumeRate{1210, 0.45}, Read: VolumeRate{5000, 1.625}, Write: VolumeRate{6900, 96.5}}
	if got[2] != want {
		t.Errorf("volume 3 = %+v\nwant       %+v", got[2], want)
	}
	// No volume bean at all (a document of DataNodeInfo alone) is no error.
	none, err := DataNodeVolumes(parseFile(t, "../datanode/testdata/dn-slow-peer.json"))
	if err != nil || len(none) != 0 {
		t.Errorf("DataNodeVolumes(DataNodeInfo alone) = %v, %v", none, err)
	}
	// A bare NaN mean is a rate without samples.
	nan, err := DataNodeVolumes(parseFile(t, "../datanode/testdata/dn-volumes-nan.json"))
	if err != nil || nan[0].Read != (VolumeRate{}) || nan[0].Write.AvgTimeMs != 2.5 {
		t.Errorf("DataNodeVolumes(NaN) = %+v, %v", nan, err)
	}
	if _, err := DataNodeVolumes(parseFile(t, "../datanode/testdata/dn-volumes-negative.json")); err == nil ||
		!strings.Contains(err.Error(), "WriteIoRateAvgTime") {
		t.Errorf("a negative mean: %v", err)
	}
}

func TestDataNodeVolumesRejects(t *testing.T) {
	f := func(name string, attrs []Attr, want string) {
		t.Helper()
		b := Bean{Name: DataNodeVolumeBeanPrefix + "/data/1", Attrs: attrs}
		if name == "no volume" {
			b.Name = DataNodeVolumeBeanPrefix
		}
		_, err := DataNodeVolumes([]Bean{b})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
	good := func() []Attr {
		var a []Attr
		for _, r := range volumeRates {
			a = append(a, Attr{r + "NumOps", num("10")}, Attr{r + "AvgTime", num("1.5")})
		}
		return a
	}
	set := func(name string, v any) []Attr {
		a := good()
		for i := range a {
			if a[i].Name == name {
				a[i].Value = v
			}
		}
		return a
	}
	f("no volume", good(), "names no volume")
	f("missing", good()[:5], "no WriteIoRateNumOps")
	f("fraction", set("ReadIoRateNumOps", num("1.5")), "ReadIoRateNumOps is not a count")
	f("negative count", set("ReadIoRateNumOps", num("-1")), "not a count")
	f("string", set("MetadataOperationRateAvgTime", "1.5"), "MetadataOperationRateAvgTime")
	f("infinite", set("WriteIoRateAvgTime", num("Infinity")), "WriteIoRateAvgTime")
}

// Reference: DataNode.getSlowDisks (null without disk metrics, else
// JSON.toString of the outliers' key set).
func TestDataNodeSlowDisks(t *testing.T) {
	f := func(file string, want []string, wantErr error) {
		t.Helper()
		got, err := DataNodeSlowDisks(parseFile(t, file))
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				t.Errorf("%s: err = %v, want %v", file, err, wantErr)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, %v; want %q", file, got, err, want)
		}
	}
	f("../datanode/testdata/dn-info-slowdisks.json", []string{"/data/3/"}, nil)
	f("../datanode/testdata/dn-info-noslowdisks.json", []string{}, nil)
	f("../datanode/testdata/dn-slow-peer.json", nil, ErrDiskStatsDisabled)
	f("../datanode/testdata/dn-hadoop2-no-attr.json", nil, ErrNoSlowDisks)
	f("../datanode/testdata/dn-no-bean.json", nil, ErrNoDataNodeInfo)
	for _, v := range []any{num("3"), `{"a":1}`, `[1]`, `["/data/1", ""]`, `["a"] x`} {
		b := Bean{Name: DataNodeInfoBean, Attrs: []Attr{{SlowDisks, v}}}
		if got, err := DataNodeSlowDisks([]Bean{b}); err == nil {
			t.Errorf("SlowDisks %v read as %q", v, got)
		}
	}
}

func FuzzDataNodeVolumes(f *testing.F) {
	for _, name := range []string{"dn-volumes.json", "dn-volumes-nan.json", "dn-info-slowdisks.json"} {
		data, err := os.ReadFile("../datanode/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		beans, err := Parse(data)
		if err != nil {
			return
		}
		vols, err := DataNodeVolumes(beans)
		if err == nil {
			for _, v := range vols {
				for _, r := range []VolumeRate{v.Metadata, v.Read, v.Write} {
					if r.NumOps < 0 || r.AvgTimeMs < 0 || r.AvgTimeMs != r.AvgTimeMs {
						t.Fatalf("volume %q: bad rate %+v", v.Volume, r)
					}
				}
			}
		}
		if disks, err := DataNodeSlowDisks(beans); err == nil {
			for _, d := range disks {
				if d == "" {
					t.Fatal("an empty slow disk")
				}
			}
		}
	})
}

// num is a number attribute as Parse gives it.
func num(s string) json.Number { return json.Number(s) }
