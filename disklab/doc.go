// Package disklab builds volumes on loop devices and slows them in the
// kernel, for the disk fault demo and the tests of the agent's disk
// measurements: nothing in the agent is told that a disk is slow.
//
// A volume is a sparse file on the machine's own file system, attached as
// a loop device that reads and writes it with direct I/O, formatted ext4
// and mounted on a directory: a file system on a block device of its own,
// with its own line in /proc/diskstats, whose requests reach the disk
// below as they come (not through the page cache of the backing file,
// where a write would take the time of a copy and a flush that of writing
// back all the file system had buffered). A nested volume puts that
// backing file on a second such volume (the outer one), so every request
// of the volume becomes, synchronously, a request of the outer device,
// issued on behalf of the process that made it.
//
// Faults are the block-I/O controller's throttle (cgroup v1,
// blkio.throttle.{read,write}_{iops,bps}_device) on one device, in a
// cgroup of the lab that the slowed process joins. The throttle holds a
// request before the device accounts it, so the throttled device's own
// counters do not see the wait: 46 direct writes at 20 IOPS took 1.9 s
// while its write time grew by 30 ms. A probe that times its own
// operations sees it (throttle the volume's device: Volume.Device). The
// kernel's counters see it only one level up: throttle the outer device of
// a nested volume (Volume.Outer), and the volume's own device, waiting for
// the outer one, shows the time (42 writes: 1.9 s of write time).
//
// Names: everything a lab makes is called "slowpeer-disklab-PID-…" (its
// directory under the temporary directory, the backing files and mount
// points in it, its cgroup), PID being the process that made it, so that
// CleanStale removes what a crashed run left (mounts, loop devices,
// cgroups, files) and two runs never collide.
//
// Making a lab needs root (CAP_SYS_ADMIN), util-linux's losetup,
// e2fsprogs' mkfs.ext4 and the cgroup v1 blkio controller mounted at
// /sys/fs/cgroup/blkio; Check says plainly what is missing.
package disklab
