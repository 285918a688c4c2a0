package hostbridge

// The reference's strings: a JSON string token read as JSON.parse reads
// it, into a String of UTF-16 code units (refString), and a String written
// as JSON.stringify writes it (quoteJSONString). The fast path
// (canon_fast_string.go) does both in one pass over the bytes, with the same
// appendEscape.

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// refString reads the JSON string at src[i] (RFC 8259 §7) into what
// JSON.parse makes of it, a String of UTF-16 code units, and returns the
// offset after it. The text is UTF-8 ("JSON text exchanged between systems
// … MUST be encoded using UTF-8", RFC 8259 §8.1), decoded strictly as a
// fatal TextDecoder does before JSON.parse sees it.
func refString(src []byte, i int) ([]uint16, int, error) {
	var s []uint16
	for j := i + 1; ; {
		if j >= len(src) {
			return nil, j, &syntaxError{syntaxUnterminated, len(src)}
		}
		switch c := src[j]; {
		case c == '"':
			return s, j + 1, nil
		case c == '\\':
			u, next, err := refEscape(src, j)
			if err != nil {
				return nil, next, err
			}
			s, j = append(s, u), next
		case c < 0x20: // "All Unicode characters may be placed within the quotation marks, except for … the control characters (U+0000 through U+001F)."
			return nil, j, &syntaxError{syntaxBadControl, j}
		default:
			r, size := utf8.DecodeRune(src[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, j, &syntaxError{syntaxBadUTF8, j}
			}
			s, j = utf16.AppendRune(s, r), j+size
		}
	}
}

// refEscapes are RFC 8259 §7's two-character escapes: escape = %x5C ( %x22
// / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG ).
var refEscapes = map[byte]uint16{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// refEscape reads the escape at src[j] (a backslash) as one UTF-16 code
// unit: "\uD834\uDD1E" is two, as the RFC says, paired only when written.
// Errors are where V8 reports them: a bad escape at the character after
// the backslash, a bad \u escape at its first character that is not a hex
// digit.
func refEscape(src []byte, j int) (uint16, int, error) {
	if j+1 >= len(src) {
		return 0, j, &syntaxError{syntaxUnterminated, len(src)}
	}
	if u, ok := refEscapes[src[j+1]]; ok { // I113
		return u, j + 2, nil
	}
	if src[j+1] != 'u' {
		return 0, j + 1, &syntaxError{syntaxBadEscape, j + 1}
	}
	var u uint16
	for k := j + 2; k < j+6; k++ {
		if k >= len(src) {
			return 0, k, &syntaxError{syntaxBadUnicode, len(src)}
		}
		d, ok := refHexDigit(src[k])
		if !ok {
			return 0, k, &syntaxError{syntaxBadUnicode, k}
		}
		u = u<<4 | d
	}
	return u, j + 6, nil
}

// refHexDigit is the value of HEXDIG (RFC 8259 §7 by RFC 5234 §B.1: DIGIT
// / "A"-"F", and "a"-"f", ABNF strings being case-insensitive).
func refHexDigit(c byte) (uint16, bool) {
	d, err := strconv.ParseUint(string(c), 16, 8)
	return uint16(d), err == nil
}

// quoteJSONString appends the String s as JSON.stringify writes it
// (ECMA-262 §25.5.2.3 QuoteJSONString): "For each code point C of
// StringToCodePoints(value)": the escapes of Table 74 (\b \t \n \f \r \"
// \\); else "if C has a numeric value less than 0x0020 (SPACE) or C has
// the same numeric value as a leading surrogate or trailing surrogate",
// UnicodeEscape(C), lower-case hex; else C itself (in UTF-8 here).
func quoteJSONString(dst []byte, s []uint16) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		if utf16.IsSurrogate(c) && c < 0xdc00 && i+1 < len(s) {
			if r := utf16.DecodeRune(c, rune(s[i+1])); r != utf8.RuneError {
				c = r // a leading surrogate then a trailing one: one code point
				i++
			}
		}
		switch {
		case c == '"' || c == '\\' || c < 0x20:
			dst = appendEscape(dst, byte(c))
		case utf16.IsSurrogate(c):
			dst = append(dst, '\\', 'u', hexDigits[c>>12], hexDigits[c>>8&0xf], hexDigits[c>>4&0xf], hexDigits[c&0xf])
		default:
			dst = utf8.AppendRune(dst, c)
		}
	}
	return append(dst, '"')
}

// appendEscape appends the JSON.stringify escape of the ASCII byte c, which
// is '"', '\\' or a C0 control.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// hexDigits are the lower-case hex digits JSON.stringify's UnicodeEscape
// writes ("the String representation of n, formatted as a lowercase
// hexadecimal number").
const hexDigits = "0123456789abcdef"
