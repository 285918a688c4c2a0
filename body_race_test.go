//go:build race

package hostbridge

// raceEnabled: the race detector is on, and sync.Pool drops a random
// quarter of what is put in it (so pooled memory is reused less).
const raceEnabled = true
