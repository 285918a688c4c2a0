package natsqueue

import (
	"context"
	"errors"
	"slices"
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
	publish := func(id string) {
		t.Helper()
		ctx, cancel := p.ctx()
		defer cancel()
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
	info, err := q.stream.Info(ctxBG)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 2 {
		t.Errorf("the stream holds %d messages, want 2 (the questions store nothing)", info.State.Msgs)
	}
}

// fakeFuture is a publish's answer as waitAcks reads it: a PubAck, an
// error, or none yet (both nil).
type fakeFuture struct {
	ok  chan *jetstream.PubAck
	err chan error
}

func newFakeFuture(ack *jetstream.PubAck, err error) fakeFuture {
	f := fakeFuture{ok: make(chan *jetstream.PubAck, 1), err: make(chan error, 1)}
	if ack != nil {
		f.ok <- ack
	}
	if err != nil {
		f.err <- err
	}
	return f
}

func (f fakeFuture) Ok() <-chan *jetstream.PubAck { return f.ok }
func (f fakeFuture) Err() <-chan error            { return f.err }
func (f fakeFuture) Msg() *nats.Msg               { return nil }

// TestWaitAcksUnanswered: D31: of a batch's publishes, waitAcks counts the
// confirmed ones and names as maybe stored those that got no answer in
// time (an error other than the server's refusal, or none before the
// context ended), never one the server refused nor one it confirmed.
func TestWaitAcksUnanswered(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	refused := &jetstream.APIError{Code: 400, ErrorCode: codeWrongLast}
	futures := []jetstream.PubAckFuture{
		newFakeFuture(&jetstream.PubAck{Sequence: 1}, nil),
		newFakeFuture(nil, refused),
		newFakeFuture(nil, jetstream.ErrAsyncPublishTimeout),
	}
	ok, unknown, err := waitAcks(context.Background(), futures)
	if ok != 1 || !slices.Equal(unknown, []int{2}) || !errors.Is(err, refused) {
		t.Errorf("answered: %d confirmed, %v unknown, %v; want 1, [2], the refusal", ok, unknown, err)
	}
	futures = append(futures[:1:1], newFakeFuture(nil, nil), newFakeFuture(nil, nil))
	ok, unknown, err = waitAcks(ctx, futures)
	if ok+len(unknown) != 3 || !slices.Equal(unknown[len(unknown)-2:], []int{1, 2}) || !errors.Is(err, context.Canceled) {
		t.Errorf("context ended: %d confirmed, %v unknown, %v; want each once, the last two unknown, context.Canceled", ok, unknown, err)
	}
}

// TestAskRefusalConfirmed: D31: a "not stored" answer to the question is
// believed only when it is given again confirmPause later (a server back
// from a pause, still taking itself for the leader, may refuse a question
// its successor would find a duplicate): here the first answer refuses
// and the next says duplicate, and the send is found stored; a refusal
// given twice, 2 s apart, says not stored.
func TestAskRefusalConfirmed(t *testing.T) {
	p := openSingle(t)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		answers []error
		stored  bool
	}{
		{[]error{&jetstream.APIError{Code: 400, ErrorCode: codeWrongLastMsgID}, nil}, true},
		{[]error{&jetstream.APIError{Code: 400, ErrorCode: codeWrongLastMsgID}}, false},
	} {
		js := &scriptedAnswers{JetStream: p.js, answers: c.answers}
		p.js = js
		start := time.Now()
		stored, known := p.wasStored(q, "x", time.Now().Add(10*time.Second))
		p.js = js.JetStream
		if stored != c.stored || !known || !c.stored && time.Since(start) < 2*time.Second {
			t.Errorf("answers %v: stored %v, known %v after %v", c.answers, stored, known, time.Since(start))
		}
	}
}

// scriptedAnswers is a JetStream whose publishes get answers in turn, the
// last one again and again.
type scriptedAnswers struct {
	jetstream.JetStream
	answers []error
	n       int
}

func (j *scriptedAnswers) PublishMsg(context.Context, *nats.Msg, ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	err := j.answers[min(j.n, len(j.answers)-1)]
	j.n++
	if err != nil {
		return nil, err
	}
	return &jetstream.PubAck{Duplicate: true}, nil
}
