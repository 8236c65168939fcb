package diskstat

import "time"

// Sample is what one device did between two readings of its counters.
type Sample struct {
	// Interval is the time between the two readings.
	Interval time.Duration
	// Reads and Writes are the requests completed in the interval.
	Reads, Writes uint64
	// ReadBytes and WriteBytes are the bytes transferred.
	ReadBytes, WriteBytes uint64
	// ReadTime and WriteTime are the response times of the interval's
	// reads and of its writes, summed over the requests.
	ReadTime, WriteTime time.Duration
	// Busy is the time during which at least one request was in flight.
	Busy time.Duration
}

// Delta returns what the device did from prev to cur, two readings
// interval apart. It returns false when a counter went backwards (the
// device was removed and another took its numbers, or a 32-bit counter
// wrapped): the interval cannot be told.
func Delta(prev, cur Counters, interval time.Duration) (Sample, bool) {
	if cur.Device != prev.Device || interval <= 0 ||
		cur.Reads < prev.Reads || cur.Writes < prev.Writes ||
		cur.ReadSectors < prev.ReadSectors || cur.WriteSectors < prev.WriteSectors ||
		cur.ReadMs < prev.ReadMs || cur.WriteMs < prev.WriteMs || cur.BusyMs < prev.BusyMs {
		return Sample{}, false
	}
	return Sample{
		Interval:   interval,
		Reads:      cur.Reads - prev.Reads,
		Writes:     cur.Writes - prev.Writes,
		ReadBytes:  (cur.ReadSectors - prev.ReadSectors) * SectorBytes,
		WriteBytes: (cur.WriteSectors - prev.WriteSectors) * SectorBytes,
		ReadTime:   time.Duration(cur.ReadMs-prev.ReadMs) * time.Millisecond,
		WriteTime:  time.Duration(cur.WriteMs-prev.WriteMs) * time.Millisecond,
		Busy:       time.Duration(cur.BusyMs-prev.BusyMs) * time.Millisecond,
	}, true
}

// IOPS returns the requests completed per second.
func (s Sample) IOPS() float64 {
	return float64(s.Reads+s.Writes) / s.Interval.Seconds()
}

// BytesPerSecond returns the bytes transferred per second.
func (s Sample) BytesPerSecond() float64 {
	return float64(s.ReadBytes+s.WriteBytes) / s.Interval.Seconds()
}

// Utilization returns the share of the interval during which the device
// had a request in flight, in [0, 1] (the kernel's io_ticks may run a
// little ahead of a clock read a moment apart; the share is clamped).
func (s Sample) Utilization() float64 {
	return min(1, max(0, s.Busy.Seconds()/s.Interval.Seconds()))
}

// Concurrency returns the mean number of requests in flight while the
// device was busy, at least 1: the summed response times over the busy
// time.
func (s Sample) Concurrency() float64 {
	total := s.ReadTime + s.WriteTime
	if s.Busy <= 0 || total <= s.Busy {
		return 1
	}
	return float64(total) / float64(s.Busy)
}

// ReadService returns the service time of the interval's reads, summed
// over them: their response times divided by Concurrency. A healthy device
// with a deep queue answers each request in its usual time however long
// the requests wait behind each other; a slow device takes long for each
// one. ReadService / Reads is the mean.
func (s Sample) ReadService() time.Duration {
	return time.Duration(float64(s.ReadTime) / s.Concurrency())
}

// WriteService is ReadService for the writes.
func (s Sample) WriteService() time.Duration {
	return time.Duration(float64(s.WriteTime) / s.Concurrency())
}
