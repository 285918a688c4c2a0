package natsqueue

import "hostbridge"

// The deployment's configuration, kept in the Platform (never on the
// server): bindings and grants (the embedded hostbridge.Bindings) and
// consumer settings, guarded by p.mu.

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
