//go:build !hostbridge_ref

package hostbridge

// The default build canonicalises JSON with the fast path (canon_fast.go,
// canon_fast_number.go, canon_fast_string.go, canon_fast_batch.go), which the tests hold
// equal to the reference (canon_ref*.go). Build with -tags hostbridge_ref to
// use the reference alone (canon_ref_select.go).

func canonical(dst, src []byte, o *canonOptions) ([]byte, valueReport, error) {
	return fastCanonical(dst, src, o)
}

func scanBatch(src []byte) ([]batchItem, []byte, error) { return fastScanBatch(src) }
