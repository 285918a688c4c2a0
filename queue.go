package hostbridge

// Platform is the deployment's queues, as the host sees them. Production maps
// it to Cloudflare Queue bindings (send, sendBatch); MemoryPlatform is the
// in-memory one. The package calls a Platform only after every check passed.
type Platform interface {
	// Bound reports whether binding is granted to the app (as in
	// {"QUEUE":["PAGE_QUEUE"]}) and configured in this deployment. It must not
	// block and must not fail: an unknown name is simply false.
	Bound(binding string) bool
	// Send must enqueue one message whose body is the JSON value body (the
	// canonical JSON text, which the platform must not alter) with the
	// options given, or return an error whose text is the platform's reason.
	Send(binding string, body []byte, opts SendOptions) error
	// SendBatch must enqueue msgs, in order, as one batch, or return an error
	// whose text is the platform's reason. Whether some were enqueued when it
	// fails is the platform's business (the spec leaves it there).
	SendBatch(binding string, msgs []BatchMessage) error
}

// SendOptions are the options of one send. ContentType is always "json";
// DelaySeconds 0 means the option is omitted (no delay).
type SendOptions struct {
	ContentType  string
	DelaySeconds int
}

// BatchMessage is one message of a batch: Body is canonical JSON.
type BatchMessage struct {
	Body         []byte
	ContentType  string
	DelaySeconds int
}

// contentTypeJSON is the only content type the package sends: "消息按 JSON 内容类型存入队列".
const contentTypeJSON = "json"
