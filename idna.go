package hostbridge

import (
	"slices"
	"strings"
	"unicode"
)

// What the URL Standard's domain to ASCII (§3.3; UTS 46 ToASCII with
// CheckHyphens, UseSTD3ASCIIRules and VerifyDnsLength false, CheckBidi and
// CheckJoiners true, Nontransitional processing, IgnoreInvalidPunycode
// false) does to an ASCII domain with a label starting "xn--": each such
// label is decoded as Punycode (punycode.go) and the result must pass the
// validity criteria of UTS 46 §4.1; if any label fails, so does the host.
// A domain with no such label is only lower-cased.
//
// The Go standard library has no IDNA mapping table, no NFC, no Bidi_Class,
// no Joining_Type and no Canonical_Combining_Class, so four checks are
// approximations, each the smallest one that keeps the cases a host meets
// right:
//
//   - "valid or deviation" status (idnaValid): by general category, case
//     folding and a list of the blocks and code points that are mapped or
//     ignored; Unicode 15.0 is the version the Go library knows, so a code
//     point assigned later is refused;
//   - NFC is not checked: a decoded label that is not in NFC (a base and a
//     combining mark that compose) passes;
//   - Bidi_Class (bidiClass): by script, general category and short lists;
//   - Joining_Type (joiningType): letters of the joining scripts are
//     dual-joining, less a list of the right-joining Arabic, Syriac and
//     Mandaic letters; viramas are listed (Canonical_Combining_Class 9).

// validACEDomain reports whether the ASCII, lower-cased domain passes domain
// to ASCII: every label starting "xn--" decodes and is valid, and when the
// domain is a Bidi domain name every label meets the Bidi rule.
func validACEDomain(domain string) bool {
	labels := strings.Split(domain, ".")
	decoded := make([][]rune, len(labels))
	for i, l := range labels {
		if !strings.HasPrefix(l, "xn--") {
			decoded[i] = []rune(l)
			continue
		}
		u, ok := punycodeDecode(l[len("xn--"):])
		if !ok || !validDecodedLabel(u) {
			return false
		}
		decoded[i] = u
	}
	return validBidiDomain(decoded)
}

// hasACELabel reports whether a label of the lower-cased domain starts
// "xn--": only then does domain to ASCII do more than lower-case it.
func hasACELabel(domain string) bool {
	return strings.HasPrefix(domain, "xn--") || strings.Contains(domain, ".xn--")
}

// validDecodedLabel is UTS 46 §4 step 4 for a label that was Punycode,
// after decoding, and the validity criteria of §4.1 for Nontransitional
// processing with CheckHyphens false and CheckJoiners true.
func validDecodedLabel(u []rune) bool {
	// "If the label is empty, or if the label contains only ASCII code
	// points, record that there was an error."
	if !slices.ContainsFunc(u, func(r rune) bool { return r >= 0x80 }) {
		return false
	}
	// "If not CheckHyphens, the label must not begin with “xn--”." "The label
	// must not contain a U+002E ( . ) FULL STOP." "The label must not begin
	// with a combining mark, that is: General_Category=Mark."
	if strings.HasPrefix(string(u), "xn--") || slices.Contains(u, '.') || unicode.Is(unicode.M, u[0]) {
		return false
	}
	for i, r := range u {
		if r == zwnj || r == zwj {
			// Deviation characters, valid in Nontransitional processing,
			// then the ContextJ rules (RFC 5892 Appendix A.1, A.2).
			if !contextJ(u, i) {
				return false
			}
		} else if !idnaValid(r) {
			return false
		}
	}
	return true
}

const (
	zwnj = '\u200C' // ZERO WIDTH NON-JOINER
	zwj  = '\u200D' // ZERO WIDTH JOINER
)

// idnaValid approximates "status valid or deviation" in the IDNA mapping
// table (UTS 46 §5) for a code point other than U+200C and U+200D. ASCII is
// valid (UseSTD3ASCIIRules false; the host parser has refused the forbidden
// domain code points). Letters, marks, decimal digits, punctuation and
// symbols are valid unless case folding changes them (upper-case letters
// are mapped to lower case) or they are in idnaNotValid; other numbers,
// separators, controls, format characters, private use, surrogates and
// unassigned code points are not.
func idnaValid(r rune) bool {
	switch {
	case r < 0x80:
		return true
	case inRanges(r, idnaNotValid):
		return false
	case r == 'ς', r == 'ı', 'Ꭰ' <= r && r <= 'Ᏽ':
		// ς is a deviation; ı and the Cherokee capitals (to which Cherokee
		// small letters fold) are their own case folding.
		return true
	case unicode.ToLower(r) != r || unicode.ToLower(unicode.ToUpper(r)) != r:
		return false
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// idnaNotValid: code points of the categories idnaValid accepts whose
// status is mapped, ignored or disallowed, in ascending ranges: the
// compatibility blocks (full- and half-width forms, presentation forms,
// compatibility ideographs, mathematical alphanumerics, enclosed and
// squared forms, Kangxi radicals, compatibility jamo, superscripts),
// variation selectors and other ignorable marks, and the letters and
// symbols that compatibility decomposition maps to something else.
var idnaNotValid = [][2]rune{
	{0xA8, 0xA8}, {0xAA, 0xAA}, {0xAF, 0xAF}, {0xB2, 0xB4}, {0xB8, 0xBA}, {0xBC, 0xBE},
	{0x132, 0x133}, {0x13F, 0x140}, {0x149, 0x149}, {0x1C4, 0x1CC}, {0x1F1, 0x1F3},
	{0x2B0, 0x2B8}, {0x2D8, 0x2DD}, {0x2E0, 0x2E4},
	{0x340, 0x341}, {0x343, 0x345}, {0x34F, 0x34F}, {0x374, 0x374}, {0x37A, 0x37A},
	{0x37E, 0x37E}, {0x384, 0x385}, {0x387, 0x387}, {0x3D2, 0x3D4}, {0x3F2, 0x3F2},
	{0x587, 0x587}, {0x675, 0x678}, {0x958, 0x95F}, {0x9DC, 0x9DD}, {0x9DF, 0x9DF},
	{0xA33, 0xA33}, {0xA36, 0xA36}, {0xA59, 0xA5B}, {0xA5E, 0xA5E}, {0xB5C, 0xB5D},
	{0xE33, 0xE33}, {0xEB3, 0xEB3}, {0xEDC, 0xEDD}, {0xF0C, 0xF0C}, {0xF43, 0xF43},
	{0xF4D, 0xF4D}, {0xF52, 0xF52}, {0xF57, 0xF57}, {0xF5C, 0xF5C}, {0xF69, 0xF69},
	{0xF73, 0xF73}, {0xF75, 0xF79}, {0xF81, 0xF81}, {0xF93, 0xF93}, {0xF9D, 0xF9D},
	{0xFA2, 0xFA2}, {0xFA7, 0xFA7}, {0xFAC, 0xFAC}, {0xFB9, 0xFB9},
	{0x10FC, 0x10FC}, {0x115F, 0x1160}, {0x13F8, 0x13FD}, {0x17B4, 0x17B5}, {0x1806, 0x1806}, {0x180B, 0x180F},
	{0x1D2C, 0x1D2E}, {0x1D30, 0x1D3A}, {0x1D3C, 0x1D4D}, {0x1D4F, 0x1D6A}, {0x1D78, 0x1D78},
	{0x1D9B, 0x1DBF}, {0x1E9A, 0x1E9B}, {0x1F71, 0x1F71}, {0x1F73, 0x1F73},
	{0x1F75, 0x1F75}, {0x1F77, 0x1F77}, {0x1F79, 0x1F79}, {0x1F7B, 0x1F7B}, {0x1F7D, 0x1F7D},
	{0x1F80, 0x1FAF}, {0x1FB2, 0x1FB5}, {0x1FB7, 0x1FC5}, {0x1FC7, 0x1FCF}, {0x1FD3, 0x1FD5},
	{0x1FD8, 0x1FDF}, {0x1FE3, 0x1FE3}, {0x1FE8, 0x1FF5}, {0x1FF7, 0x1FFF},
	{0x2011, 0x2011}, {0x2017, 0x2017}, {0x2024, 0x2026}, {0x2033, 0x2034}, {0x2036, 0x2037},
	{0x203C, 0x203C}, {0x203E, 0x203E}, {0x2047, 0x2049}, {0x2057, 0x2057},
	{0x2070, 0x209F}, {0x20A8, 0x20A8}, {0x2100, 0x2103}, {0x2105, 0x2107}, {0x2109, 0x2113},
	{0x2115, 0x2116}, {0x2119, 0x211D}, {0x2120, 0x2122}, {0x2124, 0x2124}, {0x2126, 0x2126},
	{0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2139}, {0x213B, 0x2140}, {0x2145, 0x2149},
	{0x2150, 0x217F}, {0x2189, 0x2189}, {0x222C, 0x222D}, {0x222F, 0x2230}, {0x2329, 0x232A},
	{0x2460, 0x24EA}, {0x2A0C, 0x2A0C}, {0x2A74, 0x2A76}, {0x2ADC, 0x2ADC}, {0x2C7C, 0x2C7D},
	{0x2D6F, 0x2D6F}, {0x2E9F, 0x2E9F}, {0x2EF3, 0x2EF3}, {0x2F00, 0x2FFF},
	{0x3002, 0x3002}, {0x3036, 0x3036}, {0x3038, 0x303A}, {0x309B, 0x309C}, {0x309F, 0x309F},
	{0x30FF, 0x30FF}, {0x3131, 0x318E}, {0x3192, 0x319F}, {0x3200, 0x3247}, {0x3250, 0x327E},
	{0x3280, 0x33FF},
	{0xA69C, 0xA69D}, {0xA770, 0xA770}, {0xA7F2, 0xA7F4}, {0xA7F8, 0xA7F9}, {0xAB5C, 0xAB5F},
	{0xAB69, 0xAB69}, {0xAB70, 0xABBF},
	{0xF900, 0xFA0D}, {0xFA10, 0xFA10}, {0xFA12, 0xFA12}, {0xFA15, 0xFA1E}, {0xFA20, 0xFA20},
	{0xFA22, 0xFA22}, {0xFA25, 0xFA26}, {0xFA2A, 0xFB1D}, {0xFB1F, 0xFD3D}, {0xFD40, 0xFDFF},
	{0xFE00, 0xFE19}, {0xFE30, 0xFE44}, {0xFE47, 0xFE6F}, {0xFE70, 0xFEFF}, {0xFF00, 0xFFEF},
	{0xFFF0, 0xFFFF}, {0x10781, 0x107BF},
	{0x1D15E, 0x1D164}, {0x1D1BB, 0x1D1C0}, {0x1D400, 0x1D7FF}, {0x1E030, 0x1E06D},
	{0x1EE00, 0x1EEFF}, {0x1F100, 0x1F10A}, {0x1F110, 0x1F12E}, {0x1F130, 0x1F14F},
	{0x1F16A, 0x1F16C}, {0x1F190, 0x1F190},
	{0x1F200, 0x1F251}, {0x1FBF0, 0x1FBF9}, {0x2F800, 0x2FA1F}, {0xE0000, 0xE0FFF},
}

// inRanges reports whether r is in one of the ascending ranges.
func inRanges(r rune, ranges [][2]rune) bool {
	i, _ := slices.BinarySearchFunc(ranges, r, func(rg [2]rune, r rune) int {
		switch {
		case rg[1] < r:
			return -1
		case rg[0] > r:
			return 1
		}
		return 0
	})
	return i < len(ranges) && ranges[i][0] <= r && r <= ranges[i][1]
}
