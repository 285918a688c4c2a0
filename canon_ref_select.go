//go:build hostbridge_ref

package hostbridge

// Built with -tags hostbridge_ref, the package canonicalises JSON with the
// reference alone (canon_ref*.go; refScanBatch in canon_ref_batch.go) and
// compiles none of the fast path's files (canon_fast*.go): the build for a host
// that wants only code it can audit by reading, at about 30 to 40 times
// the cost (BENCHMARKS.md).

func canonical(dst, src []byte, o *canonOptions) ([]byte, valueReport, error) {
	return refCanonical(dst, src, o)
}

func scanBatch(src []byte) ([]batchItem, []byte, error) { return refScanBatch(src) }
