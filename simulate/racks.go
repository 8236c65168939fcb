package simulate

import (
	"strconv"
	"strings"
)

// rackNodeNames returns the names of the nodes of a rack named "/rackK".
func (c *cluster) rackNodeNames(rack string) []string {
	ids := c.rackNodes(rack)
	names := make([]string, len(ids))
	for k, i := range ids {
		names[k] = c.names[i]
	}
	return names
}

// rackNodes returns the nodes of a rack named "/rackK".
func (c *cluster) rackNodes(rack string) []int32 {
	k, err := strconv.Atoi(strings.TrimPrefix(rack, "/rack"))
	if err != nil || k < 0 || k >= len(c.racks) {
		return nil
	}
	return c.racks[k]
}
