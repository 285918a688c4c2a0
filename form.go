package hostbridge

import (
	"iter"
	"strings"
)

// application/x-www-form-urlencoded (URL Standard §5) and the URLSearchParams
// operations the 入站 functions use: a URL's query read as searchParams does,
// and written back after delete and set.

// formPair is one name-value pair of a URLSearchParams list.
type formPair struct{ name, value string }

// parseForm is §5.1 application/x-www-form-urlencoded parsing of input (a
// URL's query, without "?": unlike the URLSearchParams constructor, a URL's
// searchParams does not strip a leading "?").
func parseForm(input string) []formPair {
	var list []formPair
	for name, value := range formSequences(input) {
		list = append(list, formPair{formDecode(name), formDecode(value)})
	}
	return list
}

// formGet is URLSearchParams.get(name) and has(name) over parseForm(input),
// without building the list: the first pair named name.
func formGet(input, name string) (value string, ok bool) {
	for n, v := range formSequences(input) {
		if formDecode(n) == name { // I22
			return formDecode(v), true // I19
		}
	}
	return "", false
}

// formSequences yields the name and value bytes of each sequence of input,
// not yet decoded (§5.1 steps 1–3).
func formSequences(input string) iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		// "Let sequences be the result of splitting input on 0x26 (&)."
		for seq := range strings.SplitSeq(input, "&") {
			// "If bytes is the empty byte sequence, then continue."
			if seq == "" {
				continue
			}
			// "If bytes contains a 0x3D (=), then let name be the bytes from
			// the start of bytes up to but excluding its first 0x3D (=), and
			// let value be the bytes, if any, after the first 0x3D (=) …
			// Otherwise, let name have the value of bytes and let value be
			// the empty byte sequence."
			name, value, _ := strings.Cut(seq, "=")
			if !yield(name, value) {
				return
			}
		}
	}
}

// formDecode: "Replace any 0x2B (+) in name and value with 0x20 (SP)." and
// "Let nameString and valueString be the result of running UTF-8 decode
// without BOM on the percent-decoding of name and value, respectively."
func formDecode(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	s, _ = percentDecode(s, false)
	return utf8DecodeWithoutBOM(s)
}

// serializeForm is §5.2 application/x-www-form-urlencoded serializing, what
// URLSearchParams.toString gives: each name and value "percent-encode[d] after
// encoding with encoding … using the application/x-www-form-urlencoded
// percent-encode set, and spaceAsPlus set to true", joined by "=" and "&".
// Names and values must be valid UTF-8 (scalar values, as USVStrings are).
func serializeForm(list []formPair) string {
	var b []byte
	for i, p := range list {
		if i > 0 {
			b = append(b, '&')
		}
		b = appendPercentEncoded(b, p.name, encodeForm, true)
		b = append(b, '=')
		b = appendPercentEncoded(b, p.value, encodeForm, true) // I33
	}
	return string(b)
}

// formDelete is URLSearchParams.delete(name) (§6.2): "Remove all tuples whose
// name is name from this's list".
func formDelete(list []formPair, name string) []formPair {
	out := list[:0]
	for _, p := range list {
		if p.name != name {
			out = append(out, p)
		}
	}
	return out
}

// formSet is URLSearchParams.set(name, value) (§6.2): "If this's list
// contains any tuples whose name is name, then set the value of the first such
// tuple to value and remove the others. Otherwise, append (name, value)".
func formSet(list []formPair, name, value string) []formPair {
	out := list[:0]
	found := false
	for _, p := range list {
		if p.name != name {
			out = append(out, p)
		} else if !found {
			found = true
			out = append(out, formPair{name, value})
		}
	}
	if !found {
		out = append(out, formPair{name, value})
	}
	return out
}
