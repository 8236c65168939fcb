package main

import (
	"fmt"
	"os"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/namenode"
)

// readTopology reads net.topology.table.file.name (cfg.TopologyFile), when
// set, into cfg.Topology: Hadoop's TableMapping file of "host rack" lines.
func readTopology(cfg *namenode.Config) error {
	if cfg.TopologyFile == "" {
		return nil
	}
	f, err := os.Open(cfg.TopologyFile)
	if err != nil {
		return fmt.Errorf("configuration %s: %w", namenode.TopologyFileKey, err)
	}
	defer f.Close()
	if cfg.Topology, err = diagnosis.ParseTopology(f); err != nil {
		return fmt.Errorf("configuration %s: read %s: %w", namenode.TopologyFileKey, cfg.TopologyFile, err)
	}
	return nil
}
