// Package netlab builds a small network of hosts inside one machine, for
// the fault demo and its tests: every host is a network namespace of its
// own with one veth interface, and all of them hang off one Linux bridge
// that lives in a namespace of its own too, so nothing touches the
// machine's own network.
//
// Faults are made by the kernel, with the queueing disciplines every
// kernel has (htb and u32; a minimal one may lack fq_codel, sfq, prio and
// netem): an htb class limits the rate of everything a host sends
// (FaultSendRate), or of everything the bridge sends toward it
// (FaultReceiveRate), or both (FaultLinkRate), or, picked by u32 filters,
// only the traffic between two hosts (FaultPairRate). Its token bucket is
// about one millisecond of traffic, so every packet waits its size over
// the rate, as on a slow link. Packets under 128 bytes (TCP's and the
// probes' acknowledgements) pass the limit, as a host's default fq_codel
// serves sparse flows first: a one-way fault then shows one way.
//
// Names: every namespace of a lab is called "splab-PID-ROLE" (the second
// and later labs of a process "splab-PID-N.ROLE"), PID being the process
// that made it, so that a later run can remove what a crashed run left
// (CleanStale) and two runs, or two labs of one run, never collide.
//
// Creating a lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and
// iproute2's ip and tc; Check says plainly what is missing.
package netlab
