package diskstat

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// Reader reads the counters of a chosen set of devices, again and again,
// without allocating once its buffer has grown to the document's size: the
// path a monitor takes every interval.
//
// A Reader is not safe for concurrent use. Its zero value reads Path.
// It keeps the file open between reads; Close closes it.
type Reader struct {
	// File is the document to read; "" is Path. Tests point it at a
	// fixture.
	File string

	f    *os.File // open on name, nil before the first Read and after Close
	name string
	buf  []byte
}

// Read fills out[i] with the counters of devs[i] and sets found[i] to
// whether the document lists that device. out and found must be as long
// as devs. It returns an error, and leaves out and found as they were,
// when the document cannot be read or does not parse.
func (r *Reader) Read(devs []Device, out []Counters, found []bool) error {
	if len(out) != len(devs) || len(found) != len(devs) {
		panic(fmt.Sprintf("BUG: diskstat.Reader.Read: %d devices, %d counters, %d flags", len(devs), len(out), len(found)))
	}
	file := r.File
	if file == "" {
		file = Path
	}
	data, err := r.load(file)
	if err != nil {
		return err
	}
	var got [64]Counters
	var seen [64]bool
	tmp, tmpSeen := got[:0], seen[:0]
	if len(devs) > len(got) {
		tmp, tmpSeen = make([]Counters, 0, len(devs)), make([]bool, 0, len(devs))
	}
	tmp, tmpSeen = tmp[:len(devs)], tmpSeen[:len(devs)]
	clear(tmpSeen)
	err = scan(data, func(c Counters, name []byte) bool {
		for i, d := range devs {
			if d == c.Device && !tmpSeen[i] {
				if out[i].Name == string(name) {
					c.Name = out[i].Name // keep the string: no allocation
				} else {
					c.Name = string(name)
				}
				tmp[i], tmpSeen[i] = c, true
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	copy(out, tmp)
	copy(found, tmpSeen)
	return nil
}

// load reads file whole into r.buf (procfs files have no size, so it
// reads until EOF) and returns the bytes read. It keeps the file open and
// reads it again from its start the next time: procfs makes the document
// afresh at offset 0.
func (r *Reader) load(file string) ([]byte, error) {
	if r.f == nil || r.name != file {
		r.Close()
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		r.f, r.name = f, file
	} else if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		r.Close()
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if r.buf == nil {
		r.buf = make([]byte, 0, 8<<10)
	}
	buf := r.buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= maxBytes {
				return nil, fmt.Errorf("read %s: larger than %d bytes", file, maxBytes)
			}
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := r.f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
	}
	r.buf = buf
	return buf, nil
}

// Close closes the file the Reader keeps open; a later Read opens it
// again.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f, r.name = nil, ""
	return err
}

// maxBytes bounds the document a Reader takes: about 20 000 devices.
const maxBytes = 4 << 20
