package reports

import (
	"fmt"
	"slices"
	"strings"
)

// place names a place in the heartbeat by its path, for error messages.
func place(path string) fieldPath { return fieldPath{peer: -1, field: path} }

// member returns the path of the field name of the object at l: the
// field of an array's element is named when a message needs it, not for
// every element read.
func (l fieldPath) member(name string) fieldPath {
	if l.peer >= 0 && l.field == "" {
		return fieldPath{peer: l.peer, array: l.array, field: name}
	}
	return place(l.String() + "." + name)
}

// fields reads a JSON object at path whose keys must be among names, each
// at most once, calling read with the index of each key in names and the
// path of its value; read must consume the value. It returns the set of
// keys seen, as bits by index.
func (sc *scanner) fields(path fieldPath, names []string, read func(i int, at fieldPath) error) (seen uint, err error) {
	err = sc.object(path, func(key []byte) error {
		i := slices.Index(names, string(key))
		if i < 0 {
			return &RejectError{ReasonUnknownField, fmt.Sprintf("%s: unknown field %q", path, Clip(string(key)))}
		}
		if seen&(1<<i) != 0 {
			return malformed("%s: field %s given twice", path, key)
		}
		seen |= 1 << i
		return read(i, path.member(names[i]))
	})
	return seen, err
}

// required returns a ReasonInvalid refusal naming the first of names
// whose bit is in want but not in seen, or nil.
func required(path fieldPath, names []string, seen, want uint) error {
	for i, name := range names {
		if want&(1<<i) != 0 && seen&(1<<i) == 0 {
			return &RejectError{ReasonInvalid, fmt.Sprintf("%s: missing field %s", path, name)}
		}
	}
	return nil
}

// objects reads the array value field: null, or at most max objects
// with the fields names, of which those in want (a bit per name) must be
// there, each read into its element by read; more than max is a refusal
// for the reason tooMany.
func objects[T any](sc *scanner, field string, max int, tooMany string, names []string, want uint,
	read func(e *T, f int, at fieldPath) error) ([]T, error) {
	out := make([]T, 0, sc.objectsHint(max))
	null, err := sc.array(field, max, tooMany, func(i int) error {
		// read fills the element in place: a local one handed to read
		// would be allocated for each element.
		out = append(out, *new(T))
		e := &out[len(out)-1]
		path := fieldPath{peer: i, array: field}
		seen, err := sc.fields(path, names, func(f int, at fieldPath) error { return read(e, f, at) })
		if err != nil {
			return err
		}
		return required(path, names, seen, want)
	})
	if null || err != nil {
		return nil, err
	}
	return out, nil
}

// slowDisks reads the slowDisks value: null, or an array of objects with
// exactly disk and latencies.
func (sc *scanner) slowDisks() ([]SlowDisk, error) {
	return objects(sc, "slowDisks", MaxDisks, ReasonTooManyDisks, []string{"disk", "latencies"}, 0b11,
		func(d *SlowDisk, f int, at fieldPath) (err error) {
			if f == 0 {
				d.Disk, err = sc.stringValue(at)
				return err
			}
			d.Latencies, err = sc.opLatencies(at.String())
			return err
		})
}

// diskLatencies reads the diskLatencies value: null, or an array of
// objects with disk, latencies and samples, and optionally kind and load.
func (sc *scanner) diskLatencies() ([]DiskLatency, error) {
	names := []string{"disk", "latencies", "samples", "kind", "load"}
	return objects(sc, "diskLatencies", MaxDisks, ReasonTooManyDisks, names, 0b111,
		func(d *DiskLatency, f int, at fieldPath) (err error) {
			switch f {
			case 0:
				d.Disk, err = sc.stringValue(at)
			case 1:
				d.Latencies, err = sc.opLatencies(at.String())
			case 2:
				d.Samples, err = sc.opSamples(at.String())
			case 3:
				d.Kind, err = sc.stringValue(at)
			case 4:
				d.Load, err = sc.diskLoad(at.String())
			}
			return err
		})
}

// opLatencies reads an object from DiskOp names to latencies.
func (sc *scanner) opLatencies(path string) (map[string]float64, error) {
	m := make(map[string]float64, 3)
	ops := DiskOps()
	_, err := sc.opFields(path, ops, func(i int, at fieldPath) error {
		v, err := sc.number(at)
		m[ops[i]] = v
		return err
	})
	return m, err
}

// opSamples reads an object from DiskOp names to counts.
func (sc *scanner) opSamples(path string) (map[string]int64, error) {
	m := make(map[string]int64, 3)
	ops := DiskOps()
	_, err := sc.opFields(path, ops, func(i int, at fieldPath) error {
		v, err := sc.integer(at)
		m[ops[i]] = v
		return err
	})
	return m, err
}

// opFields is fields for an object keyed by DiskOp names, whose unknown
// keys are unknown operations.
func (sc *scanner) opFields(path string, ops []string, read func(i int, at fieldPath) error) (uint, error) {
	seen, err := sc.fields(place(path), ops, read)
	if re, ok := err.(*RejectError); ok && re.Reason == ReasonUnknownField {
		re.Message = strings.Replace(re.Message, "unknown field", "unknown operation", 1)
	}
	return seen, err
}

// diskLoad reads a load object, all three fields required, or null.
func (sc *scanner) diskLoad(path string) (*DiskLoad, error) {
	if sc.literal("null") {
		return nil, nil
	}
	var l DiskLoad
	names := []string{"iops", "bytesPerSecond", "utilization"}
	dst := []*float64{&l.IOPS, &l.BytesPerSecond, &l.Utilization}
	seen, err := sc.fields(place(path), names, func(i int, at fieldPath) (err error) {
		*dst[i], err = sc.number(at)
		return err
	})
	if err == nil {
		err = required(place(path), names, seen, 0b111)
	}
	return &l, err
}
