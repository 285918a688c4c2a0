package natsqueue

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestAskStored: D31: the question about a send that got no answer
// (wasStored) says stored for a message published under its ID and not
// stored for an ID never published, on one server and on a three-node
// cluster; it stores nothing, and the stream stores what is published
// after it.
func TestAskStored(t *testing.T) {
	t.Run("R1", func(t *testing.T) { askStored(t, openSingle(t)) })
	t.Run("R3", func(t *testing.T) { askStored(t, openCluster(t, startCluster(t))) })
}

func askStored(t *testing.T, p *Platform) {
	q, err := p.ensureQueue(ctxBG, "q")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := p.ctx()
	defer cancel()
	publish := func(id string) {
		t.Helper()
		if _, err := p.js.PublishMsg(ctx, &nats.Msg{Subject: q.names.ready, Data: []byte(`1`)}, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
	publish("sent-1")
	deadline := time.Now().Add(10 * time.Second)
	if stored, known := p.wasStored(q, "sent-1", deadline); !stored || !known {
		t.Errorf("a message published: stored %v, known %v, want both", stored, known)
	}
	if stored, known := p.wasStored(q, "never-sent", deadline); stored || !known {
		t.Errorf("an ID never published: stored %v, known %v, want not stored, known", stored, known)
	}
	publish("sent-2")
	info, err := q.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 2 {
		t.Errorf("the stream holds %d messages, want 2 (the questions store nothing)", info.State.Msgs)
	}
}
