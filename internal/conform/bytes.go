// Package conform holds the messages of the conformance protocol
// (CONFORMANCE.md at the repository root) as Go types, shared by the runner
// (cmd/conform) and the Go adapter (cmd/conform/goadapter), and the byte
// builders of testdata/README.md.
package conform

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Bytes is a byte value of the protocol. It reads any byte builder, and
// writes itself as a JSON string when its bytes are valid UTF-8, else as
// {"hex": …}; a value made by Builder writes its builder back unexpanded.
type Bytes struct {
	b   []byte
	raw json.RawMessage // the builder it was made from, if any
}

// Of returns the Bytes value of b.
func Of(b []byte) Bytes { return Bytes{b: b} }

// Text returns the Bytes value of a string's bytes.
func Text(s string) Bytes { return Bytes{b: []byte(s)} }

// Builder expands a byte builder and keeps it, so that the value is written
// as the builder itself.
func Builder(raw json.RawMessage) (Bytes, error) {
	b, err := Expand(raw)
	if err != nil {
		return Bytes{}, err
	}
	return Bytes{b: b, raw: raw}, nil
}

// Bytes returns the value's bytes.
func (x Bytes) Bytes() []byte { return x.b }

// String returns the value's bytes as a string.
func (x Bytes) String() string { return string(x.b) }

// MarshalJSON writes the builder the value came from, or a JSON string, or
// {"hex": …} for bytes that are not UTF-8.
func (x Bytes) MarshalJSON() ([]byte, error) {
	if x.raw != nil {
		return x.raw, nil
	}
	return AppendBytes(nil, x.b), nil
}

// UnmarshalJSON reads any byte builder.
func (x *Bytes) UnmarshalJSON(data []byte) error {
	b, err := Expand(data)
	if err != nil {
		return err
	}
	*x = Bytes{b: b}
	return nil
}

// AppendBytes appends b as the protocol writes bytes: a JSON string when b
// is valid UTF-8, else {"hex": …}.
func AppendBytes(dst, b []byte) []byte {
	if !utf8.Valid(b) {
		dst = append(dst, `{"hex":"`...)
		dst = hex.AppendEncode(dst, b)
		return append(dst, `"}`...)
	}
	s, _ := json.Marshal(string(b)) // valid UTF-8: cannot fail
	return append(dst, s...)
}

// maxExpanded bounds what one builder may expand to, so that a hostile or
// broken builder cannot exhaust memory.
const maxExpanded = 64 << 20

// errTooLarge is a builder that expands past maxExpanded.
var errTooLarge = errors.New("byte builder expands to more than 64 MiB")

// Expand returns the bytes of a byte builder: a JSON string (its UTF-8
// bytes), {"hex": …}, {"repeat": B, "times": n} or {"concat": [B, …]}.
func Expand(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		return expandString(raw)
	}
	var b struct {
		Hex    *string           `json:"hex"`
		Repeat json.RawMessage   `json:"repeat"`
		Times  *int              `json:"times"`
		Concat []json.RawMessage `json:"concat"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &b) != nil {
		return nil, fmt.Errorf("not a byte builder: %.80s", raw)
	}
	switch {
	case b.Hex != nil:
		h, err := hex.DecodeString(*b.Hex)
		if err != nil {
			return nil, fmt.Errorf("byte builder: hex: %v", err)
		}
		return h, nil
	case b.Repeat != nil && b.Times != nil:
		return expandRepeat(b.Repeat, *b.Times)
	case b.Concat != nil:
		return expandConcat(b.Concat)
	}
	return nil, fmt.Errorf("not a byte builder: %.80s", raw)
}

func expandString(raw json.RawMessage) ([]byte, error) {
	if err := checkSurrogates(raw); err != nil {
		return nil, err
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("byte builder: a JSON string that is not UTF-8")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("byte builder: %v", err)
	}
	return []byte(s), nil
}

func expandRepeat(inner json.RawMessage, times int) ([]byte, error) {
	b, err := Expand(inner)
	if err != nil {
		return nil, err
	}
	if times < 0 || len(b) > 0 && times > maxExpanded/len(b) {
		return nil, fmt.Errorf("byte builder: repeat %d times", times)
	}
	return bytes.Repeat(b, times), nil
}

func expandConcat(parts []json.RawMessage) ([]byte, error) {
	var out []byte
	for _, p := range parts {
		b, err := Expand(p)
		if err != nil {
			return nil, err
		}
		if len(out)+len(b) > maxExpanded {
			return nil, errTooLarge
		}
		out = append(out, b...)
	}
	return out, nil
}

// checkSurrogates fails a JSON string literal holding a \u escape of a
// surrogate that is not half of a pair: it stands for no bytes.
func checkSurrogates(lit []byte) error {
	pendingHigh := false
	for i := 1; i < len(lit)-1; i++ {
		if lit[i] != '\\' {
			if pendingHigh {
				return errLoneSurrogate
			}
			continue
		}
		i++
		if lit[i] != 'u' || i+4 >= len(lit) {
			if pendingHigh {
				return errLoneSurrogate
			}
			continue
		}
		var v uint16
		for _, c := range lit[i+1 : i+5] {
			v = v<<4 | uint16(hexDigit(c))
		}
		i += 4
		switch {
		case v >= 0xdc00 && v <= 0xdfff:
			if !pendingHigh {
				return errLoneSurrogate
			}
			pendingHigh = false
		case pendingHigh:
			return errLoneSurrogate
		case v >= 0xd800 && v <= 0xdbff:
			pendingHigh = true
		}
	}
	if pendingHigh {
		return errLoneSurrogate
	}
	return nil
}

var errLoneSurrogate = errors.New("a JSON string with a lone surrogate escape stands for no bytes")

func hexDigit(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
