// Package discovery finds HiveServers where HiveServer2 registers itself
// in ZooKeeper, and registers there, in HiveServer2's own format, the
// HiveServers new JDBC connections should go to. It also registers the
// service's own replicas in ZooKeeper or etcd, as Kyuubi servers
// register, and elects their leader.
//
// # HiveServer2's registration
//
// With hive.server2.support.dynamic.service.discovery, HiveServer2 creates
// /<hive.server2.zookeeper.namespace> (default "hiveserver2") persistent
// when missing, then an EPHEMERAL_SEQUENTIAL child of it (Curator's
// PersistentEphemeralNode, so it is recreated after a session expiry)
// named
//
//	serverUri=<host>:<port>;version=<Hive version>;sequence=<10 digits>
//
// where host is the canonical host name of its Thrift address, port its
// Thrift port (the HTTP port in http transport mode) and the counter is
// ZooKeeper's. Its data are, since Hive 1.3 and by default
// (hive.server2.zookeeper.publish.configs=true), ";"-joined key=value
// configs: hive.server2.thrift.bind.host, hive.server2.transport.mode,
// hive.server2.thrift.port and hive.server2.thrift.sasl.qop (binary),
// hive.server2.thrift.http.port and hive.server2.thrift.http.path (http),
// hive.server2.authentication, the Kerberos principal, hive.server2.use.SSL
// and, from Hive 4, hive.server2.instance.uri; before Hive 1.3 (or with
// publish.configs=false) the data are just "host:port". References:
// HiveServer2.start and HiveServer2.addConfsToPublish (Hive 3, 4),
// HiveServer2.addServerInstanceToZooKeeper (Hive 1, 2),
// ZooKeeperHiveHelper.addServerInstanceToZooKeeper, HiveConf
// (HIVE_SERVER2_ZOOKEEPER_NAMESPACE, HIVE_SERVER2_ZOOKEEPER_PUBLISH_CONFIGS).
// [ParseName] reads such a name; [ParseParams] and [FormatParams] the
// configs.
//
// # What the JDBC driver does
//
// With jdbc:hive2://<zk>/;serviceDiscoveryMode=zooKeeper;zooKeeperNamespace=<ns>
// the Hive JDBC driver (and Kyuubi's, which copies it) lists the children
// of /<ns>, picks one uniformly at random, reads its data and takes the
// address from the data only: the last hive.server2.thrift.bind.host, the
// port from hive.server2.thrift.port, or from hive.server2.thrift.http.port
// when no port is set yet; data without any "=" are split on ":" into host
// and port. The child's name is never read for the address. Data that are
// empty or do not parse fail the connection attempt; the driver does not
// skip to another child. When connecting fails it rejects that child and
// picks again among the others (Utils.updateConnParamsFromZooKeeper),
// keeping the failed server's host and port where the new data do not set
// them. [Endpoint] says where the driver lands. References:
// ZooKeeperHiveClientHelper.configureConnParams, updateParamsWithZKServerNode
// and applyConfs, Utils.parseURL and updateConnParamsFromZooKeeper,
// HiveConnection's connect loop.
//
// # Watcher
//
// A [Watcher] is a hiveserver.Source: it keeps the set of HiveServers
// registered under a namespace, through a child watch, so one that goes
// away (closed its session, or its session expired) is dropped as soon as
// ZooKeeper tells, and it reads the namespace again after a reconnect or
// a new session. It also keeps each HiveServer's registration, for a
// Publisher to copy its settings.
//
// # Kyuubi
//
// Kyuubi servers register in ZooKeeper under /<kyuubi.ha.namespace>
// (default "kyuubi") in the same name format, their data "host:port" or
// key=value configs, so a Watcher on that namespace follows them as it
// follows HiveServer2. With an etcd registry, Kyuubi's EtcdDiscoveryClient
// puts the same names as keys, /<namespace>/serverUri=host:port;version=V;
// sequence=NNNNNNNNNN, value "host:port", on a lease kept alive, beside
// the lock keys /<namespace>/lock/<lease>; an [EtcdWatcher] reads the keys
// under /<namespace>/ and watches from the next revision, so a server
// whose lease ends is dropped at once. References: Kyuubi's
// EtcdDiscoveryClient (createPersistentNode, startSessionWithRetry,
// getChildren), kyuubi_discovery.md in the project's research notes.
//
// # Publisher
//
// A [Publisher] keeps, under a namespace of its own, one ephemeral
// sequential znode in HiveServer2's format for each of the best k eligible
// HiveServers ([Record] builds it: the server's own registered settings
// with the address replaced by the chosen one, so Kerberos, http mode and
// SSL still reach the client). JDBC clients that name that namespace land
// on a chosen server with no change of their own. The Publisher writes only
// when the chosen set changes, creating the new znodes before deleting
// the old ones.
//
// Several service replicas without a registry may publish into the same
// namespace. Each owns the znodes of its ZooKeeper session and leaves the
// others' alone; a client picks at random among all of them. A replica
// that dies takes its znodes with its session (after the session
// timeout). With a registry (below) only the leader publishes: its
// Publisher asks Leading before each write and takes the namespace over
// (TakeOver), deleting an earlier leader's znodes before it creates its
// own, so a dead or hung leader's znodes go as soon as a new one leads
// and two publishers never stand there at once.
//
// # Service replicas
//
// A [Replica] registers one replica of the service under
// ROOT/namenodes (a [RegistryURL], zk://H:P[,H:P]/ROOT or
// etcd://H:P[,H:P]/ROOT) with the name
//
//	serverUri=HOST:PORT;version=V[;scheme=https];sequence=NNNNNNNNNN
//
// and the data HOST:PORT ([Member]): in ZooKeeper an EPHEMERAL_SEQUENTIAL
// znode, created again under the same name in a new session (Curator's
// PersistentNode); in etcd a key on a lease of Timeout kept alive, its
// counter emulated as Kyuubi's EtcdDiscoveryClient does, under the lock
// ROOT/namenodes/lock (concurrency.Mutex, whose keys jetcd's Lock shares).
// A registration deleted by hand drains the replica: Run returns.
//
// The replicas elect a leader: in ZooKeeper by Curator's lock recipe
// (EPHEMERAL_SEQUENTIAL _c_<uuid>-lock-N under ROOT/leader, the lowest
// leads, each other watches its predecessor), in etcd by
// concurrency.Election on ROOT/leader, on the registration's lease. The
// service's [LeaderWork] (migrating a shared hook event store, publishing,
// pruning) asks [Replica.Leading] at each step and before each write;
// work that should run as a goroutine per term can be ReplicaConfig.Lead
// instead. The leader stops leading the moment it is disconnected
// from ZooKeeper, its etcd lease is lost, or two thirds of Timeout pass
// without a registry call succeeding (measured from when the call was
// sent, so it holds across a SIGSTOP; in etcd only a grant or a renewal of
// the lease counts): that is before its session or lease can expire on
// the server, so before another replica can win. When the registry
// answers again before then, the replica still holds the election and
// leads again (its lock node the lowest, its election key on its lease).
// A watchdog of the Replica's own enforces the two thirds whatever a
// registry call waits on, and every etcd call is bounded, so a replica cut off from etcd or
// without it makes a few calls per timeout, never a busy loop.
//
// A [Registry] reads the members (Members) or follows them (Follow), for
// agents and clients; while the registry is out of reach it keeps the
// last set. References: Kyuubi's ZookeeperDiscoveryClient and
// EtcdDiscoveryClient, Curator's LockInternals and PersistentNode, etcd's
// client/v3/concurrency.
//
// # Lifecycle
//
// Watchers, Publishers and Replicas are built with their New function,
// which checks the config and starts nothing, then run with Run(ctx): it
// connects, works until ctx ends, and returns once its session and every
// goroutine it started have ended (a Publisher deletes its znodes first,
// a Replica deregisters). A [LeaderWork] has the same shape, and a Step
// method that its Run calls with the time. A [Registry] is a client, not
// a component: see its documentation. A nil Logger in a config means
// slog.Default().
//
// The package speaks to ZooKeeper through github.com/go-zookeeper/zk,
// without SASL: it reads and writes znodes open to all (HiveServer2's ACL
// on a cluster without Kerberos, and world-readable on one with it). A
// registry URL with credentials (zk://USER:PASSWORD@...) makes a Replica
// authenticate with a ZooKeeper digest and create its znodes readable by
// all and writable by that user alone, as Kyuubi does with
// kyuubi.ha.zookeeper.auth.type=DIGEST (READ_ACL_UNSAFE + CREATOR_ALL_ACL);
// readers need no credentials. It speaks to etcd through
// go.etcd.io/etcd/client/v3, as the URL's user when it names one (etcd's
// authentication), over TLS when RegistryURL.TLS or EtcdWatcherConfig.TLS
// is set (EtcdTLS: Kyuubi's kyuubi.ha.etcd.ssl.* settings).
package discovery
