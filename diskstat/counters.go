package diskstat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Path is where the kernel serves the counters.
const Path = "/proc/diskstats"

// SectorBytes is the size of the sector the kernel counts in, whatever the
// device's own block size.
const SectorBytes = 512

// Device is a block device, named by its major and minor numbers as the
// kernel numbers it (st_dev of a file on it, the first two fields of its
// line in /proc/diskstats).
type Device struct {
	Major, Minor uint32
}

// String returns "MAJOR:MINOR", as the kernel writes it (sysfs,
// blkio.throttle.*).
func (d Device) String() string {
	return strconv.FormatUint(uint64(d.Major), 10) + ":" + strconv.FormatUint(uint64(d.Minor), 10)
}

// Counters are one device's cumulative counters at one reading, as the
// kernel keeps them since the device appeared. Times are milliseconds.
type Counters struct {
	// Device is the device's numbers.
	Device Device
	// Name is the kernel's name of the device ("sda1", "loop3",
	// "nvme0n1", "dm-0").
	Name string
	// Reads and Writes are the requests completed.
	Reads, Writes uint64
	// ReadSectors and WriteSectors are the sectors transferred.
	ReadSectors, WriteSectors uint64
	// ReadMs and WriteMs are the milliseconds spent on reads and on
	// writes, summed over the requests.
	ReadMs, WriteMs uint64
	// InFlight is the number of requests in flight at the reading.
	InFlight uint64
	// BusyMs is the milliseconds during which at least one request was
	// in flight (io_ticks).
	BusyMs uint64
}

// minFields is the number of fields of a line of every kernel since 2.6:
// major, minor, name and the eleven original counters.
const minFields = 14

// Parse reads every line of a /proc/diskstats document. A line with fewer
// than 14 fields, or a field that is not a decimal number where one is
// due, is an error naming the line; later fields (discards, flushes) are
// ignored.
func Parse(data []byte) ([]Counters, error) {
	var out []Counters
	err := scan(data, func(c Counters, name []byte) bool {
		c.Name = string(name)
		out = append(out, c)
		return true
	})
	return out, err
}

// scan calls f with every line's counters and its name (valid until f
// returns) until f returns false.
func scan(data []byte, f func(c Counters, name []byte) bool) error {
	var fields [minFields][]byte
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		k := 0
		for k < minFields {
			line = bytes.TrimLeft(line, " \t")
			if len(line) == 0 {
				break
			}
			end := bytes.IndexAny(line, " \t")
			if end < 0 {
				end = len(line)
			}
			fields[k], line = line[:end], line[end:]
			k++
		}
		if k < minFields {
			return fmt.Errorf("parse %s: line %d: %d fields, want at least %d", Path, n, k, minFields)
		}
		var v [11]uint64
		major, err := number32(fields[0])
		var minor uint32
		if err == nil {
			minor, err = number32(fields[1])
		}
		for i := 0; err == nil && i < len(v); i++ {
			v[i], err = number(fields[3+i])
		}
		if err != nil {
			return fmt.Errorf("parse %s: line %d: %w", Path, n, err)
		}
		c := counters(v)
		c.Device = Device{major, minor}
		if !f(c, fields[2]) {
			return nil
		}
	}
	return nil
}

var errNumber = errors.New("not a decimal number")

func number(b []byte) (uint64, error) {
	if len(b) == 0 || len(b) > 20 {
		return 0, fmt.Errorf("%q: %w", clip(b), errNumber)
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q: %w", clip(b), errNumber)
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, fmt.Errorf("%q: out of range", clip(b))
		}
		v = v*10 + d
	}
	return v, nil
}

func number32(b []byte) (uint32, error) {
	v, err := number(b)
	if err == nil && v > 1<<32-1 {
		err = fmt.Errorf("%q: out of range", clip(b))
	}
	return uint32(v), err
}

// clip bounds what an error quotes of its input.
func clip(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// ReadDevice reads the counters of one device from sysfs
// (/sys/dev/block/MAJOR:MINOR/stat, the fields of its /proc/diskstats line
// after the name): a single small read, for a look at one device just
// before and after an operation. sysfs is the root of sysfs, "" for /sys.
// buf, when it holds 256 bytes, is read into, so that the call allocates
// only the path.
func ReadDevice(sysfs string, d Device, buf []byte) (Counters, error) {
	if sysfs == "" {
		sysfs = "/sys"
	}
	name := sysfs + "/dev/block/" + d.String() + "/stat"
	f, err := os.Open(name)
	if err != nil {
		return Counters{}, fmt.Errorf("read the counters of %s: %w", d, err)
	}
	defer f.Close()
	if len(buf) < 256 {
		buf = make([]byte, 256)
	}
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return Counters{}, fmt.Errorf("read %s: %w", name, err)
	}
	var v [11]uint64
	line := buf[:n]
	for i := range v {
		line = bytes.TrimLeft(line, " \t\n")
		end := bytes.IndexAny(line, " \t\n")
		if end < 0 {
			end = len(line)
		}
		if v[i], err = number(line[:end]); err != nil {
			return Counters{}, fmt.Errorf("read %s: field %d: %w", name, i+1, err)
		}
		line = line[end:]
	}
	c := counters(v)
	c.Device = d
	return c, nil
}

// counters names the eleven fields that follow a device's name: reads,
// reads merged, sectors read, ms reading, writes, writes merged, sectors
// written, ms writing, in flight, ms busy, weighted ms.
func counters(v [11]uint64) Counters {
	return Counters{Reads: v[0], ReadSectors: v[2], ReadMs: v[3], Writes: v[4], WriteSectors: v[6], WriteMs: v[7],
		InFlight: v[8], BusyMs: v[9]}
}
