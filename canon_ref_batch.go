package hostbridge

// refScanBatch is scanBatch on the reference (canon_ref.go): the batch is
// parsed whole, then each item's surviving members are read in JavaScript
// key order and each body is canonicalised again on its own span, with the
// queue's checks. Like scanBatch it keeps at most MaxBatchMessages+1 items.
func refScanBatch(src []byte) ([]batchItem, []byte, error) {
	if i := refSkipSpace(src, 0); i >= len(src) {
		return nil, nil, &syntaxError{syntaxUnexpectedEnd, len(src)}
	} else if src[i] != '[' {
		return nil, nil, unexpectedAt(src, i) // only an array is read
	}
	root, err := refParse(src, &canonOptions{})
	if err != nil {
		return nil, nil, err
	}
	var (
		items  []batchItem
		bodies []byte
	)
	for _, e := range root.members[:min(len(root.members), MaxBatchMessages+1)] {
		it := batchItem{badIndex: -1, notObject: !e.value.object}
		for _, m := range e.value.members {
			v := m.value
			switch string(m.key) {
			case `"body"`:
				span, start := src[v.off:v.end], len(bodies)                      // Q82
				bodies, it.bodyInfo, _ = refCanonical(bodies, span, &bodyOptions) // Q36
				if it.bodyInfo.problem.kind != problemNone {
					it.bodyInfo.problem.off += v.off
				}
				it.hasBody, it.bodyStart, it.bodyEnd, it.bodyInput = true, start, len(bodies), len(span)
			case `"delaySeconds"`:
				it.hasDelay = true
				it.delay, it.delayOK = delayValue(refStringify(nil, v))
			default:
				if !it.hasBadKey && e.value.object {
					it.hasBadKey, it.badKey, it.badIndex = true, string(m.key[1:len(m.key)-1]), m.index
				}
			}
		}
		items = append(items, it)
	}
	return items, bodies, nil
}
