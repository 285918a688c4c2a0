//go:build !hostbridge_ref

package hostbridge

// The fast path's batch scan: SendQueueBatch's items read in one pass of
// the fast parser, bodies canonicalised as they are met. batch.go judges
// the items; canon_ref_batch.go is the reference's scan.

// fastScanBatch parses the batch text, which must be a JSON array, in one pass.
// It returns the items and the buffer that holds their canonical bodies.
// Past MaxBatchMessages+1 items the batch is too long to send whatever they
// hold: the rest of the text is still parsed, but no item nor body is kept.
func fastScanBatch(src []byte) ([]batchItem, []byte, error) {
	p := newParser(src, nil, &bodyOptions) // Q36
	defer p.release()
	s := &batchScan{p: p, bodies: make([]byte, 0, len(src))}
	var items []batchItem
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '[' {
		return nil, nil, p.errorAt(i)
	}
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == ']' {
		return nil, nil, trailing(src, i+1)
	}
	for {
		it := batchItem{badIndex: -1}
		keep := len(items) <= MaxBatchMessages
		var err error
		if i < len(src) && src[i] == '{' {
			i, err = s.object(i, &it, keep)
		} else {
			it.notObject = true
			i, err = s.skip(i)
		}
		if err != nil {
			return nil, nil, err
		}
		if keep {
			items = appendDoubling(items, it)
		}
		if i = skipSpace(src, i); i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
			continue
		}
		if i >= len(src) || src[i] != ']' {
			return nil, nil, p.errorAt(i)
		}
		return items, s.bodies, trailing(src, i+1)
	}
}

// batchScan is one scan of a batch: the parser and its buffers.
type batchScan struct {
	p      *parser
	bodies []byte // the kept items' canonical bodies
	key    []byte // the current key, canonical
	other  []byte // values that are not kept
}

// skip parses the value at src[i:], which is not kept, into s.other.
func (s *batchScan) skip(i int) (int, error) {
	s.p.out = s.other[:0]
	j, _, err := s.p.value(i)
	s.other = s.p.out
	return j, err
}

// object parses the item object at src[i:] (its '{') into it.
func (s *batchScan) object(i int, it *batchItem, keep bool) (int, error) {
	p, src := s.p, s.p.src
	i = skipSpace(src, i+1)
	for first := true; ; first = false {
		if i < len(src) && src[i] == '}' && first {
			return i + 1, nil
		}
		if i >= len(src) || src[i] != '"' {
			return i, p.errorAt(i)
		}
		p.out = s.key[:0]
		j, err := p.str(i)
		if err != nil {
			return j, err
		}
		s.key = p.out
		if j = skipSpace(src, j); j >= len(src) || src[j] != ':' {
			return j, p.errorAt(j)
		}
		if j, err = s.member(skipSpace(src, j+1), it, keep); err != nil {
			return j, err
		}
		if i = skipSpace(src, j); i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
			continue
		}
		if i >= len(src) || src[i] != '}' {
			return i, p.errorAt(i)
		}
		return i + 1, nil
	}
}

// member parses the value at src[i:] of the member whose key is s.key.
func (s *batchScan) member(i int, it *batchItem, keep bool) (int, error) {
	switch string(s.key) {
	case `"body"`:
		if !keep {
			return s.skip(i)
		}
		p, start := s.p, len(s.bodies)
		p.out = s.bodies
		j, info, err := p.value(i)
		it.hasBody, it.bodyStart, it.bodyEnd, it.bodyInput, it.bodyInfo = true, start, len(p.out), j-i, info
		s.bodies = p.out
		return j, err
	case `"delaySeconds"`:
		j, err := s.skip(i)
		it.hasDelay = true
		it.delay, it.delayOK = delayValue(s.other)
		return j, err
	}
	it.noteKey(s.key)
	return s.skip(i)
}

// noteKey records key, which is neither body nor delaySeconds, if it comes
// first in JavaScript key order ("array index" keys ascending, then the
// others as they first appear).
func (it *batchItem) noteKey(key []byte) {
	x := arrayIndex(key)
	switch {
	case !it.hasBadKey:
	case x >= 0 && (it.badIndex < 0 || x < it.badIndex):
	default:
		return
	}
	it.hasBadKey, it.badKey, it.badIndex = true, string(key[1:len(key)-1]), x
}

// errorAt is the syntax error at src[i], which may be the end.
func (p *parser) errorAt(i int) error {
	if i >= len(p.src) {
		return &syntaxError{syntaxUnexpectedEnd, len(p.src)}
	}
	return p.unexpected(i)
}

// trailing is the error for anything but whitespace after the value ending at i.
func trailing(src []byte, i int) error {
	if i = skipSpace(src, i); i < len(src) {
		return &syntaxError{syntaxAfterJSON, i}
	}
	return nil
}
