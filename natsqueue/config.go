package natsqueue

import (
	"encoding/json"

	"hostbridge"
)

// The deployment's configuration, kept in the Platform (never on the
// server): bindings, grants and consumer settings, guarded by p.mu.

// Bind configures binding to send to queue.
func (p *Platform) Bind(binding, queue string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bindings[binding] = queue
}

// Grant grants the bindings to the app.
func (p *Platform) Grant(bindings ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range bindings {
		p.granted[b] = true
	}
}

// GrantJSON grants what a host permission text such as
// {"QUEUE":["PAGE_QUEUE"]} names under "QUEUE".
func (p *Platform) GrantJSON(permissions string) error {
	var perm struct{ QUEUE []string }
	if err := json.Unmarshal([]byte(permissions), &perm); err != nil {
		return err
	}
	p.Grant(perm.QUEUE...)
	return nil
}

// Bound implements hostbridge.Platform: binding is granted and configured.
// It asks the server nothing.
func (p *Platform) Bound(binding string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.bindings[binding]
	return ok && p.granted[binding]
}

// SetConsumer sets the consumer settings of queue, or returns an error and
// changes nothing when one is out of range (hostbridge.CheckConsumerSettings:
// MemoryPlatform's ranges). They apply from the next batch on.
func (p *Platform) SetConsumer(queue string, s hostbridge.ConsumerSettings) error {
	if err := hostbridge.CheckConsumerSettings(queue, s); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settings[queue] = s
	return nil
}

// Consumer returns the consumer settings of queue (MemoryPlatform's
// defaults until SetConsumer).
func (p *Platform) Consumer(queue string) hostbridge.ConsumerSettings {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.settings[queue]; ok {
		return s
	}
	return hostbridge.DefaultConsumerSettings()
}

// queueOf is the queue binding sends to.
func (p *Platform) queueOf(binding string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.bindings[binding]
	return q, ok
}
