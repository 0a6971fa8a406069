//go:build race

package e2e

// raceEnabled builds the binary under test with the race detector too, so
// races in the daemon and the bridge fail these tests.
const raceEnabled = true
