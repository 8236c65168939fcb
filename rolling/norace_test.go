//go:build !race

package rolling

const raceEnabled = false
