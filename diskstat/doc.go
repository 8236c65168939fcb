// Package diskstat reads the kernel's own per-device I/O counters,
// /proc/diskstats, and finds the block device under a directory.
//
// Every line of /proc/diskstats is one block device (whole disks,
// partitions, loop, device-mapper and md devices alike): its major and
// minor numbers, its name, and cumulative counters since boot, of which
// this package keeps reads and writes completed, sectors (512 bytes each,
// whatever the device's block size) read and written, milliseconds spent
// reading and writing (summed over the requests, from the moment the block
// layer accounted a request to its completion, so queueing inside the
// device's queue counts and parallel requests add up), and milliseconds
// with at least one request in flight (io_ticks). See the kernel's
// Documentation/admin-guide/iostats.rst.
//
// Two readings a known time apart give a Sample: the operations, bytes and
// latencies of that interval, and how busy the device was. Latency is
// offered two ways: the response time the kernel summed per request, and
// the service time, the response time divided by the mean number of
// requests in flight (Little's law), which stays what the device takes
// per request when a healthy device merely has a deep queue (a busy disk)
// and grows when the device itself is slow.
//
// A throttle of the block-I/O controller (cgroup blkio) holds requests
// before the device accounts them, so the counters of the throttled device
// itself do not see it; a loop device whose backing file lies on the
// throttled device does (package disklab).
package diskstat
