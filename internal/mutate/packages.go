package main

// A pkg is a package the tool mutates, by its directory from the root
// module (-dir): the files it mutates unless -files names others, where its
// equivalent mutants are argued (a path from the root module), whether its
// tests run with -short, and the tests run on each file's mutants.
type pkg struct {
	files, equivalents string
	short              bool
	subsets            map[string]subset
}

// A subset is the tests run on a file's mutants (go test -run) and the
// build they run in: the tests that reach the file, so that a mutant costs
// little more than its build. A file not listed runs every test. -run and
// -tags replace these.
type subset struct{ run, tags string }

// fastJSON is the tests of the fast path's canonical JSON (the default
// build).
var fastJSON = subset{"Canonical|String|Number|KeyOrder|JCS|IsMarker|Depth|JSONTestSuite|Fast|Syntax|Batch|Producer|ReadQueueBatch|UTF8ShortBOMPrefix|UTF8LenientLengthCounted|UTF8BadByteOffset", ""}

// refJSON is the tests of the reference's canonical JSON, in the
// reference build (where every canonical JSON test runs on it).
var refJSON = subset{"Canonical|Reference|String|Number|KeyOrder|JCS|IsMarker|Depth|JSONTestSuite|Batch|Producer|Consumer|Syntax|UTF8ShortBOMPrefix|UTF8LenientLengthCounted|UTF8BadByteOffset", "hostbridge_ref"}

var pkgs = map[string]pkg{
	// The root package: the reference (canon_ref*.go) is tested in its build, where
	// every canonical JSON test runs on it. Its long tests are skipped.
	".": {
		files: "limits.go,canon_ref.go,queue.go,batch.go,consumer.go,body.go,batchrecord.go,outcome.go,delivery.go," +
			"inbound.go,url.go,form.go,utf8.go,httpevent.go,memory.go,fakeevent.go," +
			"canon.go,canon_fast_string.go,canon_fast_number.go,canon_fast.go," +
			"canon_ref_number.go,canon_ref_string.go,canon_ref_batch.go,canon_ref_select.go," +
			"canon_fast_batch.go,canon_fast_select.go,errors.go,checkqueue.go",
		equivalents: "internal/mutate/equivalent.txt",
		short:       true,
		subsets: map[string]subset{
			"canon_ref.go":        refJSON,
			"canon_ref_number.go": refJSON,
			"canon_ref_string.go": refJSON,
			"canon_ref_batch.go":  refJSON,
			"canon_ref_select.go": refJSON,
			"checkqueue.go":       {"CheckQueue|Memory|Example", ""},
			"queue.go":            {"Producer|Batch|Error|Send|Example|CheckQueue|Memory", ""},
			"batch.go":            {"Producer|Batch|Error|Send|Example|CheckQueue|Memory|Reference|Delay", ""},
			"consumer.go":         {"Consumer|Queue|Memory|Example|CheckQueue|AckRetry", ""},
			"batchrecord.go":      {"BatchRecord|Outcome|Consumer|Queue|Memory|AckRetry|CheckQueue|Example", ""},
			"outcome.go":          {"Settle|Memory|CheckQueue|Queue|Consumer|DeadLetter|Example", ""},
			"delivery.go":         {"Memory|CheckQueue|Queue|Example|DeadLetter", ""},
			"body.go":             {"Body|Inbound|HTTPEvent|JSON|ContentLength|Lenient|ReadMemory|CountBefore|Block|UTF8|Strict|Example|Header|DeclaredLength|Lock", ""},
			"inbound.go":          {"Inbound|Header|SpecFunctions|URL|Fake|NewRequest|HTTPEvent|SameOrigin", ""},
			"url.go":              {"URL|Inbound|SameOrigin|HTTPEvent|SpecFunctions", ""},
			"form.go":             {"URLSearchParams|Inbound|SameOrigin|SpecFunctions|Form", ""},
			"utf8.go":             {"UTF8|Body|Inbound|HTTPEvent|ReadMemory|ReadQueueBatch|String|JSON|Canonical|Syntax|Lenient", ""},
			"httpevent.go":        {"HTTPEvent|RequestURL|NetHTTP|DeclaredLength|Inbound|Header", ""},
			"memory.go":           {"Memory|CheckQueue|Producer|Consumer|Queue|DelayValue|Send|DeadLetter|Example", ""},
			"fakeevent.go":        {"Fake|NewRequest|Inbound|Header|SpecFunctions", ""},
			// The fast path's canonical JSON; canon.go (what both builds
			// share) is tested with it.
			"canon.go":             fastJSON,
			"canon_fast_string.go": fastJSON,
			"canon_fast_number.go": fastJSON,
			"canon_fast.go":        fastJSON,
			"canon_fast_batch.go":  fastJSON,
			"canon_fast_select.go": fastJSON,
		},
	},
	// natsqueue, the NATS JetStream platform (a module of its own): its
	// durability code. Not -short, and HOSTBRIDGE_LONG=1 (runner.go):
	// TestPowerCut (a power cut on a FUSE file system, about 10 s) is what
	// tells a store synced from one not.
	"natsqueue": {
		files:       "durability.go,sync_linux.go,limits.go,copies.go,claims.go",
		equivalents: "natsqueue/mutate-equivalent.txt",
		subsets: map[string]subset{
			"durability.go": {"^(TestGroupSync|TestSendWaitsForSync|TestSyncPolicy|TestPowerCut)$", ""},
			"sync_linux.go": {"^(TestStoreSyncer|TestSendWaitsForSync|TestSyncPolicy|TestPowerCut)$", ""},
			"limits.go":     {"^(TestMaxPending.*|TestLimits.*|TestDroppedAfterReopen|TestStatsSurviveReopen|TestCountsStoredOnce)$", ""},
			"copies.go":     {"^(TestRetry.*|TestOriginal.*|TestDeadLetter.*|TestPublishConfirmed|TestAlreadyGone|TestMaxRetriesDeadLetter|TestExhaustedSkipsHandler|TestHandlerErrorAndPanic|TestConsumerVectors|TestServerRestart|TestHosts.*|TestAttemptsAfterCrash|TestCopyHeldUntilStored|TestRemove.*|TestOlderStreamUpgraded)$", ""},
			"claims.go":     {"^(TestClaim.*|TestRenewOwn|TestScheduleFiredTwice|TestFiring.*|TestHosts.*|TestCopyHeldUntilStored|TestAttemptsAfterCrash|TestExhaustedSkipsHandler|TestOriginal.*|TestRetry.*|TestDeadLetter.*|TestSentWhenAnswerLost)$", ""},
		},
	},
}
