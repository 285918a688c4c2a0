package natsqueue

// The messages of Open's errors about the server, the store and the
// connection (fmt formats; tests compare them to the byte).
const (
	// msgStoreInUse: the store directory and the OS's reason.
	msgStoreInUse = "natsqueue: store %s is in use by another Platform (its lock file natsqueue.lock is held): %v"
	// msgServerTooOld: the version found and the minimum.
	msgServerTooOld = "natsqueue: nats-server %s is too old: natsqueue needs nats-server %s or newer (message schedules)"
	// msgPortNeedsPassword: a port without credentials.
	msgPortNeedsPassword = "natsqueue: Options.Port needs PortUser and PortPassword"
	// msgPortRange: the port asked for.
	msgPortRange = "natsqueue: Options.Port %d is not a TCP port (1 to 65535, or 0 for none)"
	// msgPortWithURLs: a port on a server natsqueue does not run.
	msgPortWithURLs = "natsqueue: Options.Port is for the embedded server, not with URLs"
	// msgConnect: the URLs (credentials left out) or "the embedded
	// server", and nats.go's reason.
	msgConnect = "natsqueue: connect to %s: %w"
	// msgClusterNotReady: the URLs, Options.ReadyWait, Replicas and the
	// last try's reason.
	msgClusterNotReady = "natsqueue: the cluster at %s is not ready after %v: waited for a server to connect to, a JetStream leader and servers for each stream's replicas (%d); last: %v"
)

// msgNegativeLimits: SetLimits' error for a bound below 0.
const msgNegativeLimits = "natsqueue: limits must not be negative"
