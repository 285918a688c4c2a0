//go:build !hostbridge_ref

package hostbridge

// The default build canonicalises JSON with the fast path (canon_fast.go,
// number_fast.go, jsonstring_fast.go, batch_fast.go), which the tests hold
// equal to the reference (canonref*.go). Build with -tags hostbridge_ref to
// use the reference alone (canonref_select.go).

func canonical(dst, src []byte, o *canonOptions) ([]byte, valueReport, error) {
	return fastCanonical(dst, src, o)
}

func scanBatch(src []byte) ([]batchItem, []byte, error) { return fastScanBatch(src) }
