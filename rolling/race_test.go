//go:build race

package rolling

// raceEnabled tells the long property tests to shorten themselves: the race
// detector slows them tenfold and they check logic, not races.
const raceEnabled = true
