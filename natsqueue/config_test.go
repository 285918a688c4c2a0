package natsqueue

import (
	"fmt"
	"testing"

	"hostbridge"
)

// TestConfiguration: bindings, grants and consumer settings live in the
// Platform itself; SetConsumer refuses what hostbridge.CheckConsumerSettings
// refuses, with its error, and keeps the settings it had.
func TestConfiguration(t *testing.T) {
	p := newPlatform(Options{})
	p.Bind("Q", "q")
	if p.Bound("Q") {
		t.Error("Q bound before its grant")
	}
	if err := p.GrantJSON(`{"QUEUE":["Q","OTHER"]}`); err != nil {
		t.Fatal(err)
	}
	if !p.Bound("Q") || p.Bound("OTHER") {
		t.Errorf("Bound: Q %v, OTHER %v", p.Bound("Q"), p.Bound("OTHER"))
	}
	if q, ok := p.Queue("Q"); q != "q" || !ok {
		t.Errorf("Queue(Q) = %q, %v", q, ok)
	}
	good := hostbridge.DefaultConsumerSettings()
	good.MaxRetries = 7
	if err := p.SetConsumer("q", good); err != nil {
		t.Fatal(err)
	}
	bad := good
	bad.DeadLetterQueue = "q"
	err := p.SetConsumer("q", bad)
	if want := hostbridge.CheckConsumerSettings("q", bad); err == nil || fmt.Sprint(err) != fmt.Sprint(want) {
		t.Errorf("SetConsumer: %v, want %v", err, want)
	}
	if s := p.Consumer("q"); s != good {
		t.Errorf("settings now %+v, want %+v", s, good)
	}
	if s := p.Consumer("other"); s != hostbridge.DefaultConsumerSettings() {
		t.Errorf("default settings %+v", s)
	}
}
