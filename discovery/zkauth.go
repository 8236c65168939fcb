package discovery

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// zkACL is the ACL of the znodes a Replica creates. Without credentials
// they are open to all, HiveServer2's ACL on a cluster without Kerberos.
// With them, as Kyuubi's ZookeeperACLProvider does for an auth type other
// than NONE, all may read and the user who created them may do anything
// (READ_ACL_UNSAFE + CREATOR_ALL_ACL): agents and clients find the
// replicas without credentials, and only a process with the replicas'
// credentials registers, elects or deletes.
func (u RegistryURL) zkACL() []zk.ACL {
	if u.User == "" {
		return zk.WorldACL(zk.PermAll)
	}
	return append(zk.WorldACL(zk.PermRead), zk.AuthACL(zk.PermAll)...)
}

// zkAuthenticate adds the URL's credentials, if any, to conn's session as
// a ZooKeeper digest ("USER:PASSWORD"); go-zookeeper sends them again
// after every reconnect, before any other request. It waits for a
// session, until ctx ends (then it closes conn).
func zkAuthenticate(ctx context.Context, conn *zk.Conn, u RegistryURL) error {
	if u.User == "" {
		return nil
	}
	stop := context.AfterFunc(ctx, conn.Close)
	defer stop()
	if err := conn.AddAuth("digest", []byte(u.User+":"+u.Password)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("authenticate to zookeeper as %s: %w", u.User, err)
	}
	return nil
}
