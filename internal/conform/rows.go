package conform

// How some vector rows become calls of the spec functions: shared by the
// root package's vector tests and the runner, so that both run a row the
// same way.

// Chunkings returns body whole, split in two at every point (empty halves
// included), and in 1-byte chunks: the ways a body may arrive that a
// decode must not depend on (utf8-decoding.json).
func Chunkings(body []byte) [][][]byte {
	out := [][][]byte{{body}}
	for k := 0; k <= len(body); k++ {
		out = append(out, [][]byte{body[:k], body[k:]})
	}
	ones := [][]byte{}
	for i := range body {
		ones = append(ones, body[i:i+1])
	}
	return append(out, ones)
}

// DelSet maps a list of URLSearchParams calls onto 构造入站同源网址's
// lists: one-argument deletes, then sets. ok is false when the calls do not
// have that shape (append, sort, two-argument delete, a delete after a set).
func DelSet(steps [][]string) (set [][2]string, del []string, ok bool) {
	for _, s := range steps {
		switch {
		case len(s) == 2 && s[0] == "delete" && set == nil:
			del = append(del, s[1])
		case len(s) == 3 && s[0] == "set":
			set = append(set, [2]string{s[1], s[2]})
		default:
			return nil, nil, false
		}
	}
	return set, del, true
}

// DistinctNames reports whether no two pairs share a name: only then can a
// serialize row's pairs be set one by one through 构造入站同源网址.
func DistinctNames(pairs [][2]string) bool {
	seen := map[string]bool{}
	for _, p := range pairs {
		if seen[p[0]] {
			return false
		}
		seen[p[0]] = true
	}
	return true
}
