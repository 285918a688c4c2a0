//go:build !hostbridge_ref

package hostbridge

// The package canonicalises JSON with the fast path (canon.go, number.go,
// jsonstring.go), which the tests hold equal to the reference in
// canonref.go. Build with -tags hostbridge_ref to use the reference.

func canonical(dst, src []byte, o *canonOptions) ([]byte, valueReport, error) {
	return fastCanonical(dst, src, o)
}

func scanBatch(src []byte) ([]batchItem, []byte, error) { return fastScanBatch(src) }
