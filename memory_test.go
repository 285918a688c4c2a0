package hostbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var epoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// newVirtual returns a platform on a virtual clock with binding B → queue q.
func newVirtual(t testing.TB) *MemoryPlatform {
	t.Helper()
	p := NewMemoryPlatform()
	p.VirtualClock(epoch)
	p.Bind("B", "q")
	p.Grant("B")
	return p
}

func sendN(t testing.TB, p *MemoryPlatform, n, delay int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := p.Send(context.Background(), "B", []byte(strconv.Itoa(i)), SendOptions{ContentType: contentTypeJSON, DelaySeconds: delay}); err != nil {
			t.Fatal(err)
		}
	}
}

func setConsumer(t testing.TB, p *MemoryPlatform, queue string, f func(*ConsumerSettings)) {
	t.Helper()
	s := DefaultConsumerSettings()
	f(&s)
	if err := p.SetConsumer(queue, s); err != nil {
		t.Fatal(err)
	}
}

// deliver is Deliver that must deliver.
func deliver(t testing.TB, p *MemoryPlatform, queue string, h func(Event) error) DeliveryResult {
	t.Helper()
	r, ok := p.Deliver(queue, h)
	if !ok {
		t.Fatalf("no batch ready on %s", queue)
	}
	return r
}

func noBatch(t testing.TB, p *MemoryPlatform, queue string) {
	t.Helper()
	if r, ok := p.Deliver(queue, func(Event) error { t.Error("handler called"); return nil }); ok {
		t.Fatalf("unexpected batch %v", r.IDs)
	}
}

// attempts returns each message's attempts, in batch order.
func attemptsOf(ev Event) []int {
	var a []int
	for _, m := range ev.Batch().Messages() {
		a = append(a, m.Attempts)
	}
	return a
}

func fail(Event) error { return errors.New("boom") }
func ok(Event) error   { return nil }

// checkStats checks the conservation law and the counters given.
func checkStats(t testing.TB, p *MemoryPlatform, queue string, want QueueStats) {
	t.Helper()
	s := p.Stats(queue)
	if s.Sent != s.Acked+s.DeadLettered+s.Dropped+s.Pending {
		t.Errorf("%s: sent %d ≠ acked+deadLettered+dropped+pending in %+v", queue, s.Sent, s)
	}
	if s != want {
		t.Errorf("%s stats\n got %+v\nwant %+v", queue, s, want)
	}
}

func TestMemorySendEnqueues(t *testing.T) {
	p := newVirtual(t)
	body := []byte(`{"kind":"page"}`)
	if err := p.Send(context.Background(), "B", body, SendOptions{ContentType: "json"}); err != nil {
		t.Fatal(err)
	}
	body[0] = 'X' // the platform keeps its own copy
	p.Advance(time.Second)
	if err := p.SendBatch(context.Background(), "B", []BatchMessage{{Body: []byte(`1`), ContentType: "json"}, {Body: []byte(`"x"`), ContentType: "json", DelaySeconds: 3}}); err != nil {
		t.Fatal(err)
	}
	q := p.Queued("q")
	if len(q) != 3 {
		t.Fatalf("queued %d", len(q))
	}
	idRE := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for i, want := range []struct {
		body string
		ts   time.Time
	}{{`{"kind":"page"}`, epoch}, {`1`, epoch.Add(time.Second)}, {`"x"`, epoch.Add(time.Second)}} {
		m := q[i]
		raw, isRaw := m.Body.(json.RawMessage)
		if !isRaw || string(raw) != want.body || !m.Timestamp.Equal(want.ts) || m.Attempts != 1 || !idRE.MatchString(m.ID) || seen[m.ID] {
			t.Errorf("message %d = %+v", i, m)
		}
		seen[m.ID] = true
	}
	// A second platform's IDs differ: the random half differs.
	if id := NewMemoryPlatform().newIDLocked(); id[:16] == q[0].ID[:16] {
		t.Errorf("two platforms share the ID prefix %s", id[:16])
	}
	checkStats(t, p, "q", QueueStats{Sent: 3, Pending: 3, Ready: 2})
}

func TestMemorySendRejected(t *testing.T) {
	p := newVirtual(t)
	p.FailNext("Queue is full")
	if err := p.SendBatch(context.Background(), "B", []BatchMessage{{Body: []byte(`1`), ContentType: "json"}}); err == nil || err.Error() != "Queue is full" {
		t.Fatalf("err = %v", err)
	}
	if err := p.Send(context.Background(), "nope", []byte(`1`), SendOptions{ContentType: "json"}); err == nil {
		t.Fatal("unconfigured binding accepted")
	}
	if n := len(p.Queued("q")); n != 0 {
		t.Fatalf("%d messages enqueued by failed sends", n)
	}
	p.SetCallLimit(-1)
	for _, d := range []int{-1, MaxDelaySeconds + 1} {
		if err := p.SendBatch(context.Background(), "B", []BatchMessage{{Body: []byte(`1`), ContentType: "json"}, {Body: []byte(`2`), ContentType: "json", DelaySeconds: d}}); err == nil {
			t.Fatalf("delay %d accepted", d)
		}
	}
	if err := p.Send(context.Background(), "B", []byte(`1`), SendOptions{ContentType: "json", DelaySeconds: MaxDelaySeconds}); err != nil {
		t.Fatal(err)
	}
	if q := p.Queued("q"); len(q) != 1 {
		t.Fatalf("%d messages enqueued", len(q))
	}
	if c := p.Calls(); len(c) != 5 || c[0].Err != "Queue is full" || c[1].Err == "" || c[4].Err != "" {
		t.Fatalf("calls %+v", c)
	}
	p.SetCallLimit(1)
	sendN(t, p, 3, 0)
	if c := p.Calls(); len(c) != 1 || string(c[0].Messages[0].Body) != "2" {
		t.Fatalf("calls after SetCallLimit(1): %+v", c)
	}
	p.SetCallLimit(0)
	sendN(t, p, 1, 0)
	if c := p.Calls(); len(c) != 0 {
		t.Fatalf("calls after SetCallLimit(0): %+v", c)
	}
}

// TestMemoryCallLimit: a new platform keeps exactly the last
// DefaultCallLimit (1000) calls, oldest first; SetCallLimit keeps the last
// n of them, in order, also after the ring has wrapped.
// Pins D30.
func TestMemoryCallLimit(t *testing.T) {
	p := newVirtual(t)
	sendN(t, p, 2500, 0)
	bodies := func() []string {
		var out []string
		for _, c := range p.Calls() {
			out = append(out, string(c.Messages[0].Body))
		}
		return out
	}
	want := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, strconv.Itoa(i))
		}
		return out
	}
	if got := bodies(); DefaultCallLimit != 1000 || !reflect.DeepEqual(got, want(1500, 2500)) {
		t.Fatalf("default record: %d calls, %v … ", len(got), got[:min(3, len(got))])
	}
	p.SetCallLimit(10)
	if got := bodies(); !reflect.DeepEqual(got, want(2490, 2500)) {
		t.Fatalf("after SetCallLimit(10): %v", got)
	}
	p.SetCallLimit(12)
	sendN(t, p, 5, 0) // bodies 0…4 again
	if got := bodies(); !reflect.DeepEqual(got, append(want(2493, 2500), want(0, 5)...)) {
		t.Fatalf("after SetCallLimit(12) and 5 more: %v", got)
	}
}

// BenchmarkMemorySendCallLimit sends one small message per op with a full
// record of 1000 (the default) and of 100000 calls: the cost per Send does
// not depend on the limit.
func BenchmarkMemorySendCallLimit(b *testing.B) {
	for _, limit := range []int{DefaultCallLimit, 100000} {
		b.Run(strconv.Itoa(limit), func(b *testing.B) {
			p := newVirtual(b)
			p.SetCallLimit(limit)
			sendN(b, p, limit, 0) // a full record: every op below replaces the oldest call
			body := []byte(`{"n":1}`)
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Send(context.Background(), "B", body, SendOptions{ContentType: contentTypeJSON}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMemorySendDelay: a message with DelaySeconds is ready that many
// seconds after the send, not a nanosecond before.
// Pins D30.
func TestMemorySendDelay(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	sendN(t, p, 1, 30)
	noBatch(t, p, "q")
	p.Advance(30*time.Second - time.Nanosecond)
	noBatch(t, p, "q")
	p.Advance(time.Nanosecond)
	r := deliver(t, p, "q", ok)
	if len(r.IDs) != 1 || len(r.Acked) != 1 {
		t.Fatalf("%+v", r)
	}
	checkStats(t, p, "q", QueueStats{Sent: 1, Delivered: 1, Acked: 1})
}

// TestMemoryConsumerSettingsLimits pins D27.
func TestMemoryConsumerSettingsLimits(t *testing.T) {
	p := NewMemoryPlatform()
	for _, tc := range []struct {
		f  func(*ConsumerSettings)
		ok bool
	}{
		{func(s *ConsumerSettings) { s.MaxBatchSize = 0 }, false},
		{func(s *ConsumerSettings) { s.MaxBatchSize = 1 }, true},
		{func(s *ConsumerSettings) { s.MaxBatchSize = 100 }, true},
		{func(s *ConsumerSettings) { s.MaxBatchSize = 101 }, false},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = -1 }, false},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 }, true},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 60 * time.Second }, true},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 60*time.Second + 1 }, false},
		{func(s *ConsumerSettings) { s.MaxRetries = -1 }, false},
		{func(s *ConsumerSettings) { s.MaxRetries = 0 }, true},
		{func(s *ConsumerSettings) { s.MaxRetries = 100 }, true},
		{func(s *ConsumerSettings) { s.MaxRetries = 101 }, false},
		{func(s *ConsumerSettings) { s.RetryDelay = -1 }, false},
		{func(s *ConsumerSettings) { s.RetryDelay = 0 }, true},
		{func(s *ConsumerSettings) { s.RetryDelay = MaxDelaySeconds }, true},
		{func(s *ConsumerSettings) { s.RetryDelay = MaxDelaySeconds + 1 }, false},
		{func(s *ConsumerSettings) { s.DeadLetterQueue = "q" }, false},
		{func(s *ConsumerSettings) { s.DeadLetterQueue = "dlq" }, true},
	} {
		s := DefaultConsumerSettings()
		tc.f(&s)
		err := p.SetConsumer("q", s)
		if (err == nil) != tc.ok {
			t.Errorf("%+v: %v", s, err)
		}
		if check := CheckConsumerSettings("q", s); (check == nil) != tc.ok || fmt.Sprint(check) != fmt.Sprint(err) {
			t.Errorf("%+v: CheckConsumerSettings %v, SetConsumer %v", s, check, err)
		}
		if got := p.Consumer("q"); tc.ok != (got == s) {
			t.Errorf("%+v: settings now %+v", s, got)
		}
	}
	if d := DefaultConsumerSettings(); d != (ConsumerSettings{MaxBatchSize: 10, MaxBatchTimeout: 5 * time.Second, MaxRetries: 3}) {
		t.Errorf("defaults %+v", d)
	}
}

// TestMemoryClockMovedWithoutAdvance: the clock can move without Advance
// (real time passes; here VirtualClock is set ahead). Deliver still finds
// the delayed messages that came due, and when the clock moved during a
// handler, the messages it retried or dead-lettered are queued after those
// that came due earlier: ready messages stay in time order on every queue.
func TestMemoryClockMovedWithoutAdvance(t *testing.T) {
	p := NewMemoryPlatform()
	p.VirtualClock(epoch)
	setConsumer(t, p, "q", func(s *ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxBatchSize, s.MaxRetries, s.DeadLetterQueue = 0, 1, 1, "dlq"
	})
	setConsumer(t, p, "dlq", func(s *ConsumerSettings) { s.MaxBatchTimeout, s.MaxBatchSize = 0, 1 })
	msg := func(s string) Message { return Message{Body: json.RawMessage(strconv.Quote(s))} }
	d := p.Enqueue("q", msg("due"), 10)
	p.VirtualClock(epoch.Add(time.Minute))
	if s := p.Stats("q"); s.Ready != 1 || s.Pending != 1 {
		t.Fatalf("stats of the message that came due: %+v", s)
	}
	if r := deliver(t, p, "q", ok); !reflect.DeepEqual(r.Acked, []string{d}) {
		t.Fatalf("the message that came due: %+v", r)
	}
	a := p.Enqueue("q", msg("retried"), 0)
	e := p.Enqueue("q", msg("due later"), 10)    // at 1 min 10 s
	x := p.Enqueue("dlq", msg("dead later"), 10) // at 1 min 10 s
	jump := func(to time.Duration) func(Event) error {
		return func(ev Event) error { p.VirtualClock(epoch.Add(to)); return fail(ev) }
	}
	if r := deliver(t, p, "q", jump(time.Hour)); !reflect.DeepEqual(r.Retried, []RetryMessage{{a, 0}}) {
		t.Fatalf("retry: %+v", r)
	}
	var order []string
	for range 2 {
		order = append(order, deliver(t, p, "q", jump(2*time.Hour)).IDs...)
	}
	if !reflect.DeepEqual(order, []string{e, a}) {
		t.Errorf("q delivered %v, want %v (due at 1 min 10 s, then retried at 1 h)", order, []string{e, a})
	}
	// a failed twice: a dead letter, moved at 2 h, after x on dlq.
	order = nil
	for range 2 {
		order = append(order, deliver(t, p, "dlq", ok).IDs...)
	}
	if !reflect.DeepEqual(order, []string{x, a}) {
		t.Errorf("dlq delivered %v, want %v", order, []string{x, a})
	}
}

// TestMemoryWaitSeesInFlight: taking a batch wakes Wait, before the handler
// returns: a condition on InFlight is seen while the handler runs.
func TestMemoryWaitSeesInFlight(t *testing.T) {
	p := NewMemoryPlatform()
	p.VirtualClock(epoch)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 0)
	release, done := make(chan struct{}), make(chan struct{})
	started := false
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := p.Wait(ctx, func() bool {
		inFlight := p.Stats("q").InFlight == 1
		if !started { // the delivery starts only once Wait is waiting
			started = true
			go func() {
				defer close(done)
				p.Deliver("q", func(Event) error { <-release; return nil })
			}()
		}
		return inFlight
	})
	close(release)
	<-done
	if err != nil {
		t.Fatalf("InFlight 1 not seen during the handler: %v", err)
	}
}

// TestMemoryEnqueueNotJSON: a message another producer sent with a
// structured clone reaches ReadQueueBatch as a value that is not JSON.
// Pins D23.
func TestMemoryEnqueueNotJSON(t *testing.T) {
	// Pins Q58.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	p.Enqueue("q", Message{Body: time.Unix(0, 0)}, 0)
	deliver(t, p, "q", func(ev Event) error {
		_, err := ReadQueueBatch(ev)
		if e := checkErr(err, &rowError{"violation", MsgMessageNotJSON + "0"}); e != nil {
			t.Error(e)
		}
		return nil
	})
	if err := p.Send(context.Background(), "B", []byte("hi"), SendOptions{ContentType: "text"}); err != nil {
		t.Fatal(err)
	}
	if q := p.Queued("q"); len(q) != 1 || q[0].Body != "hi" {
		t.Fatalf("text message %+v", q)
	}
}

func TestMemoryNilHandlerAndSnapshot(t *testing.T) {
	p := newVirtual(t)
	sendN(t, p, 10, 0)
	// No call made: ExplicitAcks and RetryMessages are nil, not empty.
	if r := deliver(t, p, "q", nil); r.Outcome != OutcomeOK || len(r.Acked) != 10 || r.ExplicitAcks != nil || r.RetryMessages != nil {
		t.Fatalf("%+v", r)
	}
	snap := p.Snapshot()
	data, err := json.Marshal(snap)
	if err != nil || string(data) != `{"q":{"sent":10,"delivered":10,"acked":10,"retried":0,"deadLettered":0,"dropped":0,"pending":0,"inFlight":0,"ready":0}}` {
		t.Fatalf("%s %v", data, err)
	}
	if s := p.Stats("none"); s != (QueueStats{}) {
		t.Fatalf("unknown queue %+v", s)
	}
}

// TestMemoryStress: 8 producers, 4 consumer loops, handlers that fail about
// 10% of the time and sometimes panic, 20 000 messages. Every message ends
// acked or dead-lettered exactly once; none is lost, none invented. The
// clock is virtual: a driver advances it only when nothing is ready and
// nothing is in flight, so retry delays pass without sleeping.
func TestMemoryStress(t *testing.T) {
	const producers, perProducer, consumers = 8, 2500, 4
	const total = producers * perProducer
	p := newVirtual(t)
	p.SetCallLimit(0)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.DeadLetterQueue = "dlq" })
	setConsumer(t, p, "dlq", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })

	var mu sync.Mutex
	acked := map[string]int{}     // body → times acked
	dead := map[string]int{}      // body → times dead-lettered
	idBody := map[string]string{} // ID → body, to see that IDs keep their body
	var errs []error
	report := func(err error) { errs = append(errs, err) } // under mu
	see := func(m Message) string {
		body := string(m.Body.(json.RawMessage))
		if b, ok := idBody[m.ID]; ok && b != body {
			report(fmt.Errorf("ID %s had body %s, now %s", m.ID, b, body))
		}
		idBody[m.ID] = body
		return body
	}
	// A poison message is retried on every delivery: it must end dead-lettered.
	poison := func(body string) bool { return fnv32(body)%1000 == 0 }
	// roll is a deterministic die per message and attempt.
	roll := func(body string, attempts, salt int) int {
		h := fnv32(body) ^ uint32(attempts*7919+salt*104729)
		h ^= h >> 13
		h *= 0x5bd1e995
		h ^= h >> 15
		return int(h % 100)
	}
	handler := func(ev Event) error {
		text, err := ReadQueueBatch(ev)
		if err != nil || !json.Valid([]byte(text)) {
			return fmt.Errorf("read: %v", err)
		}
		msgs := ev.Batch().Messages()
		mu.Lock()
		defer mu.Unlock()
		var implicit []string
		for i, m := range msgs {
			body := see(m)
			switch r := roll(body, m.Attempts, 1); {
			case poison(body) || r < 4:
				if err := RetryQueueMessage(ev, i, r%2); err != nil { // 0: default, 1 s
					report(err)
				}
			case r < 50:
				if err := AckQueueMessage(ev, i); err != nil {
					report(err)
				}
				acked[body]++ // final: acked messages are not redelivered
			default:
				implicit = append(implicit, body)
			}
		}
		switch r := roll(see(msgs[0]), msgs[0].Attempts, 2); {
		case r < 7:
			return errors.New("handler failed")
		case r < 10:
			panic("handler panicked")
		}
		for _, body := range implicit {
			acked[body]++
		}
		return nil
	}
	dlqHandler := func(ev Event) error {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range ev.Batch().Messages() {
			dead[see(m)]++
		}
		return nil
	}
	finished := func() bool {
		mu.Lock()
		n := len(acked) + len(dead)
		mu.Unlock()
		q, d := p.Stats("q"), p.Stats("dlq")
		return n >= total && q.Pending == 0 && d.Pending == 0
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // guards a hang only
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	var loops sync.WaitGroup
	for i := 0; i < consumers; i++ {
		loops.Add(1)
		go func() { defer loops.Done(); p.Run(runCtx, "q", handler) }()
	}
	loops.Add(1)
	go func() { defer loops.Done(); p.Run(runCtx, "dlq", dlqHandler) }()

	var prod sync.WaitGroup
	for i := 0; i < producers; i++ {
		prod.Add(1)
		go func(i int) {
			defer prod.Done()
			for j := 0; j < perProducer; {
				if j%50 < 25 {
					body := fmt.Sprintf(`{"p":%d,"s":%d}`, i, j)
					if err := SendQueueMessage(context.Background(), p, "B", body, 0); err != nil {
						t.Error(err)
					}
					j++
					continue
				}
				var items []string
				for k := 0; k < 5; k++ {
					items = append(items, fmt.Sprintf(`{"body":{"p":%d,"s":%d}}`, i, j))
					j++
				}
				if err := SendQueueBatch(context.Background(), p, "B", "["+strings.Join(items, ",")+"]"); err != nil {
					t.Error(err)
				}
			}
		}(i)
	}
	// The driver: time passes only when nothing can happen now.
	idle := func() bool {
		q, d := p.Stats("q"), p.Stats("dlq")
		return q.InFlight+d.InFlight == 0 && q.Ready+d.Ready == 0 && q.Pending+d.Pending > 0
	}
	for {
		if err := p.Wait(ctx, func() bool { return finished() || idle() }); err != nil {
			t.Fatalf("stuck: %v; q %+v dlq %+v", err, p.Stats("q"), p.Stats("dlq"))
		}
		if finished() {
			break
		}
		p.Advance(time.Second)
	}
	prod.Wait()
	stop()
	loops.Wait()

	for _, err := range errs {
		t.Error(err)
	}
	poisoned := 0
	for i := 0; i < producers; i++ {
		for j := 0; j < perProducer; j++ {
			body := fmt.Sprintf(`{"p":%d,"s":%d}`, i, j)
			if a, d := acked[body], dead[body]; a+d != 1 || (poison(body) && d != 1) {
				t.Fatalf("%s acked %d times, dead-lettered %d times", body, a, d)
			}
			if poison(body) {
				poisoned++
			}
		}
	}
	if len(acked)+len(dead) != total || len(idBody) != total {
		t.Fatalf("%d acked + %d dead, %d IDs; want %d", len(acked), len(dead), len(idBody), total)
	}
	q, d := p.Stats("q"), p.Stats("dlq")
	if q.Sent != total || q.Acked != int64(len(acked)) || q.DeadLettered != int64(len(dead)) || q.Dropped != 0 ||
		d.Sent != int64(len(dead)) || d.Acked != int64(len(dead)) || q.Retried == 0 || poisoned == 0 || len(dead) < poisoned {
		t.Fatalf("q %+v\ndlq %+v\nacked %d dead %d", q, d, len(acked), len(dead))
	}
	t.Logf("q %+v; dlq %+v; %d poison messages; virtual time %v", q, d, poisoned, p.Now().Sub(epoch))
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// BenchmarkQueueEndToEnd: send → deliver → ReadQueueBatch → AckQueueMessage
// for small page messages in batches of 10; one op is one message.
func BenchmarkQueueEndToEnd(b *testing.B) {
	p := newVirtual(b)
	p.SetCallLimit(0)
	body := `{"kind":"page","url":"/release/x","version":"v8","refresh":true}`
	handler := func(ev Event) error {
		if _, err := ReadQueueBatch(ev); err != nil {
			return err
		}
		for i := range ev.Batch().Messages() {
			if err := AckQueueMessage(ev, i); err != nil {
				return err
			}
		}
		return nil
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := SendQueueMessage(context.Background(), p, "B", body, 0); err != nil {
			b.Fatal(err)
		}
		if i%10 == 9 {
			if r, ok := p.Deliver("q", handler); !ok || r.Outcome != OutcomeOK {
				b.Fatalf("%v %+v", ok, r)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	if s := p.Stats("q"); s.Acked != int64(b.N/10*10) {
		b.Fatalf("%+v", s)
	}
}

// FuzzMemoryDelivery runs random sequences of sends, deliveries (with random
// acks, retries, failures and panics), clock moves and setting changes, and
// checks the invariants: every queue keeps Sent = Acked + DeadLettered +
// Dropped + Pending; each delivered message ends in exactly one of Acked,
// Retried, DeadLettered, Dropped; attempts go up by one per delivery; a
// message done or dropped is never delivered again, a dead letter only from
// the dead-letter queue.
// Pins D30.
func FuzzMemoryDelivery(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 9, 17, 2, 41, 1, 200, 3, 4})
	f.Add([]byte{0, 8, 16, 3, 11, 1, 255, 255, 1, 254, 2, 80, 1, 0, 4, 4, 4})
	f.Add([]byte{3, 27, 0, 0, 0, 0, 1, 7, 7, 7, 7, 1, 15, 1, 23, 2, 255, 1, 31, 4, 1, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		p := newVirtual(t)
		p.SetCallLimit(0)
		attempts := map[string]int{} // ID → attempts of its last delivery
		where := map[string]string{} // ID → the queue it must next come from; "" when finished
		next := func() byte {
			if len(ops) == 0 {
				return 0
			}
			b := ops[0]
			ops = ops[1:]
			return b
		}
		check := func(r DeliveryResult, queue string, batch []Message) {
			seen := map[string]int{}
			for _, id := range r.Acked {
				seen[id]++
				where[id] = ""
			}
			for _, rm := range r.Retried {
				seen[rm.ID]++
			}
			for _, d := range r.DeadLettered {
				seen[d.ID]++
				where[d.ID] = d.Queue
				if d.Attempts != attempts[d.ID] {
					t.Fatalf("dead letter %s with attempts %d, delivered with %d", d.ID, d.Attempts, attempts[d.ID])
				}
				attempts[d.ID] = 0 // a dead letter starts again at 1
			}
			for _, id := range r.Dropped {
				seen[id]++
				where[id] = ""
			}
			if len(seen) != len(batch) || len(r.IDs) != len(batch) {
				t.Fatalf("result %+v for a batch of %d", r, len(batch))
			}
			for _, m := range batch {
				if seen[m.ID] != 1 {
					t.Fatalf("message %s is in %d outcomes: %+v", m.ID, seen[m.ID], r)
				}
			}
		}
		deliverFrom := func(queue string) {
			var batch []Message
			r, ok := p.Deliver(queue, func(ev Event) error {
				batch = ev.Batch().Messages()
				for i, m := range batch {
					if w, known := where[m.ID]; known && w != queue {
						t.Fatalf("message %s delivered from %s, expected from %q", m.ID, queue, w)
					}
					if prev := attempts[m.ID]; m.Attempts != prev+1 {
						t.Fatalf("message %s: attempts %d after %d", m.ID, m.Attempts, prev)
					}
					attempts[m.ID] = m.Attempts
					where[m.ID] = queue
					switch c := next(); c % 4 {
					case 1:
						ev.Batch().Ack(i)
					case 2:
						ev.Batch().Retry(i, int(c>>2)%3)
					case 3:
						ev.Batch().Retry(i, int(c>>2)%3)
						ev.Batch().Ack(i)
					}
				}
				switch next() % 5 {
				case 3:
					return errors.New("fail")
				case 4:
					panic("panic")
				}
				return nil
			})
			if ok {
				check(r, queue, batch)
			}
		}
		for len(ops) > 0 {
			switch op := next(); op % 6 {
			case 0:
				if err := SendQueueMessage(context.Background(), p, "B", "1", int(op>>3)%3); err != nil {
					t.Fatal(err)
				}
			case 1:
				deliverFrom("q")
			case 2:
				p.Advance(time.Duration(op>>3) * time.Second)
			case 3:
				s := ConsumerSettings{
					MaxBatchSize:    int(op>>3)%4 + 1,
					MaxBatchTimeout: time.Duration(op>>5%2) * time.Second,
					MaxRetries:      int(op>>6) % 3,
					RetryDelay:      int(op>>4) % 2,
					RedeliverAcked:  op&0x40 != 0,
				}
				if op&0x80 != 0 {
					s.DeadLetterQueue = "dlq"
				}
				if err := p.SetConsumer("q", s); err != nil {
					t.Fatal(err)
				}
			case 4:
				deliverFrom("dlq")
			case 5:
				p.Enqueue("q", Message{Body: json.RawMessage(`2`)}, int(op>>3)%2)
			}
			for name, s := range p.Snapshot() {
				if s.Sent != s.Acked+s.DeadLettered+s.Dropped+s.Pending || s.InFlight != 0 || s.Ready > s.Pending {
					t.Fatalf("%s: %+v", name, s)
				}
			}
		}
	})
}

// TestMemoryMessageIDs pins D30's IDs: 32 lower-case hex digits, distinct,
// the first 16 random per platform. (Pending with messages in flight is
// pinned by TestMemoryPendingInFlight.)
func TestMemoryMessageIDs(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	sendN(t, p, 2, 0)
	r := deliver(t, p, "q", ok)
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	if len(r.IDs) != 2 || r.IDs[0] == r.IDs[1] || !hex32.MatchString(r.IDs[0]) || !hex32.MatchString(r.IDs[1]) {
		t.Fatalf("IDs %q", r.IDs)
	}
	other := NewMemoryPlatform().Enqueue("q", Message{Body: json.RawMessage("1")}, 0)
	if !hex32.MatchString(other) || other[:16] == r.IDs[0][:16] {
		t.Errorf("another platform's ID %q beside %q", other, r.IDs[0])
	}
}

// TestMemoryPendingInFlight pins the memory platform's counters while a
// handler holds a batch: Pending counts the messages in flight as well as
// the waiting ones (QueueStats: Sent = Acked + DeadLettered + Dropped +
// Pending at any time), InFlight those in the batch, Ready the others.
// Pins D30.
func TestMemoryPendingInFlight(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.MaxBatchSize = 2 })
	sendN(t, p, 3, 0)
	sendN(t, p, 1, 60)
	var during QueueStats
	deliver(t, p, "q", func(Event) error {
		during = p.Stats("q")
		return nil
	})
	want := QueueStats{Sent: 4, Delivered: 2, Pending: 4, InFlight: 2, Ready: 1}
	if during != want {
		t.Errorf("stats during the handler\n got %+v\nwant %+v", during, want)
	}
	checkStats(t, p, "q", QueueStats{Sent: 4, Delivered: 2, Acked: 2, Pending: 2, Ready: 1})
}

// TestMemoryEnqueueDelayClamp pins Enqueue's delay: clamped to 0 …
// 43200 seconds, the range a send's delay must be in ("延迟秒数须在 0 至 43200
// （12 小时）之间", 发送队列消息) — Enqueue stands for another producer, so it
// clamps rather than fails: below 0 is ready at once, above 43200 is ready
// after exactly 43200 seconds.
// Pins D17.
func TestMemoryEnqueueDelayClamp(t *testing.T) {
	// Pins Q23.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	early := p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, -5)
	if r := deliver(t, p, "q", ok); len(r.IDs) != 1 || r.IDs[0] != early {
		t.Fatalf("a delay below 0: %+v", r)
	}
	late := p.Enqueue("q", Message{Body: json.RawMessage(`2`)}, 43200*3)
	at := p.Enqueue("q", Message{Body: json.RawMessage(`3`)}, 43200)
	p.Advance(43199 * time.Second)
	noBatch(t, p, "q")
	p.Advance(time.Second)
	if r := deliver(t, p, "q", ok); len(r.IDs) != 2 || r.IDs[0] != late || r.IDs[1] != at {
		t.Fatalf("a delay above 43200: %+v", r)
	}
	checkStats(t, p, "q", QueueStats{Sent: 3, Delivered: 3, Acked: 3})
}

// TestMemoryOwnCopies pins that the memory platform keeps its own copy
// of what it is sent (a Queue binding's send serialises the body at the
// call): a caller reusing its buffers afterwards changes neither the
// queued messages nor the record of calls.
func TestMemoryOwnCopies(t *testing.T) {
	p := newVirtual(t)
	body := []byte(`"ab"`)
	batch := []BatchMessage{{Body: body, ContentType: contentTypeJSON}}
	if err := p.SendBatch(context.Background(), "B", batch); err != nil {
		t.Fatal(err)
	}
	copy(body, `"zz"`)
	batch[0].Body = []byte(`"yy"`)
	if q := p.Queued("q"); len(q) != 1 || string(q[0].Body.(json.RawMessage)) != `"ab"` {
		t.Errorf("queued %+v", q)
	}
	if c := p.Calls(); len(c) != 1 || string(c[0].Messages[0].Body) != `"ab"` {
		t.Errorf("calls %+v", c)
	}
}

// TestMemoryUnboundBindingText pins the reason the memory platform
// reports for a binding it has no queue for, which 发送队列消息 would pass on
// after its prefix ("平台拒绝时抛出的异常消息是 `队列发送失败：` … 加上平台报告的原文"),
// and its record of the failed call.
func TestMemoryUnboundBindingText(t *testing.T) {
	// Pins Q47.
	p := newVirtual(t)
	err := p.Send(context.Background(), "nope", []byte("1"), SendOptions{ContentType: contentTypeJSON})
	if err == nil || err.Error() != "binding nope is not configured" {
		t.Errorf("error %v", err)
	}
	if c := p.Calls(); len(c) != 1 || c[0].Err != "binding nope is not configured" || c[0].Binding != "nope" || c[0].Method != "send" {
		t.Errorf("calls %+v", c)
	}
}

// TestMemoryEnqueueDefaults pins Enqueue's defaults for what a message
// left out: a new unique ID, the platform clock's time, attempts 1 (读取队列批次:
// "attempts 从 1 起"); what it gave is kept.
func TestMemoryEnqueueDefaults(t *testing.T) {
	p := newVirtual(t)
	p.Advance(time.Minute)
	a := p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 0)
	b := p.Enqueue("q", Message{Body: json.RawMessage(`2`)}, 0)
	given := Message{ID: "given", Timestamp: epoch.Add(-time.Hour), Attempts: 3, Body: json.RawMessage(`3`)}
	if id := p.Enqueue("q", given, 0); id != "given" {
		t.Errorf("Enqueue kept ID %q", id)
	}
	q := p.Queued("q")
	if a == "" || b == "" || a == b || len(q) != 3 || q[0].ID != a || q[1].ID != b {
		t.Fatalf("IDs %q %q, queued %+v", a, b, q)
	}
	for _, m := range q[:2] {
		if !m.Timestamp.Equal(epoch.Add(time.Minute)) || m.Attempts != 1 {
			t.Errorf("defaults %+v", m)
		}
	}
	if m := q[2]; !m.Timestamp.Equal(given.Timestamp) || m.Attempts != 3 {
		t.Errorf("given %+v", m)
	}
}

// TestMemorySettingsErrors pins the errors CheckConsumerSettings gives
// for each setting out of range: each names the setting and the value it
// was given, and the range.
func TestMemorySettingsErrors(t *testing.T) {
	for _, c := range []struct {
		set  func(*ConsumerSettings)
		want string
	}{
		{func(s *ConsumerSettings) { s.MaxBatchSize = 101 }, "hostbridge: MaxBatchSize 101 is not in 1…100"},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 61 * time.Second }, "hostbridge: MaxBatchTimeout 1m1s is not in 0…1m0s"},
		{func(s *ConsumerSettings) { s.MaxRetries = 101 }, "hostbridge: MaxRetries 101 is not in 0…100"},
		{func(s *ConsumerSettings) { s.RetryDelay = 43201 }, "hostbridge: RetryDelay 43201 is not in 0…43200"},
		{func(s *ConsumerSettings) { s.DeadLetterQueue = "q" }, `hostbridge: queue "q" cannot be its own dead-letter queue`},
	} {
		s := ConsumerSettings{MaxBatchSize: 7, MaxBatchTimeout: 8 * time.Second, MaxRetries: 9, RetryDelay: 10}
		c.set(&s)
		if err := CheckConsumerSettings("q", s); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestMemoryWaitWakes pins Wait's promise: it evaluates cond again
// after every change of the platform — here a send, Advance, VirtualClock
// and SetConsumer, each made while Wait is blocked.
func TestMemoryWaitWakes(t *testing.T) {
	p := newVirtual(t)
	for _, c := range []struct {
		name   string
		change func()
		cond   func() bool
	}{
		{"send", func() { sendN(t, p, 1, 0) }, func() bool { return p.Stats("q").Sent == 1 }},
		{"Advance", func() { p.Advance(time.Minute) }, func() bool { return p.Now().Equal(epoch.Add(time.Minute)) }},
		{"VirtualClock", func() { p.VirtualClock(epoch) }, func() bool { return p.Now().Equal(epoch) }},
		{"SetConsumer", func() { setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = 5 }) },
			func() bool { return p.Consumer("q").MaxBatchSize == 5 }},
	} {
		waiting, done := make(chan struct{}), make(chan error)
		first := true
		go func() {
			done <- p.Wait(context.Background(), func() bool {
				if first {
					first = false
					close(waiting)
					return false
				}
				return c.cond()
			})
		}()
		<-waiting
		c.change()
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
}

// TestMemoryDelayOneSecond pins the smallest delay: a send delayed 1
// second, and a retry delayed 1 second, wait that second — neither is
// delivered at once nor a millisecond early ("延迟秒数须在 0 至 43200 之间",
// 0 alone meaning none).
// Pins D30.
func TestMemoryDelayOneSecond(t *testing.T) {
	// Pins Q23, Q24, Q63.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.RetryDelay = 30 })
	if err := SendQueueMessage(context.Background(), p, "B", `1`, 1); err != nil {
		t.Fatal(err)
	}
	noBatch(t, p, "q")
	p.Advance(999 * time.Millisecond)
	noBatch(t, p, "q")
	p.Advance(time.Millisecond)
	r := deliver(t, p, "q", func(ev Event) error { return RetryQueueMessage(ev, 0, 1) })
	if len(r.Retried) != 1 || r.Retried[0].DelaySeconds != 1 {
		t.Fatalf("retry %+v", r.Retried)
	}
	noBatch(t, p, "q")
	p.Advance(999 * time.Millisecond)
	noBatch(t, p, "q")
	p.Advance(time.Millisecond)
	deliver(t, p, "q", ok)
	checkStats(t, p, "q", QueueStats{Sent: 1, Delivered: 2, Retried: 1, Acked: 1})
}

// TestMemoryDelayZeroReadyAtOnce: a message sent with delay 0 (the option
// omitted) is in a batch with no time passing; one sent with delay 1 is
// not, until a second has passed.
func TestMemoryDelayZeroReadyAtOnce(t *testing.T) {
	// Pins Q24.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	for _, d := range []int{1, 0} {
		if err := SendQueueMessage(context.Background(), p, "B", strconv.Itoa(d), d); err != nil {
			t.Fatal(err)
		}
	}
	var bodies []any
	deliver(t, p, "q", func(ev Event) error {
		for _, m := range ev.Batch().Messages() {
			bodies = append(bodies, m.Body)
		}
		return nil
	})
	if len(bodies) != 1 || !rawIs(bodies[0], "0") {
		t.Errorf("the first batch holds %v, want the message of delay 0 alone", bodies)
	}
	noBatch(t, p, "q")
}
