package hostbridge

import (
	"slices"
	"unicode"
)

// The ContextJ rules (RFC 5892 Appendix A.1, A.2) and the Bidi rule (RFC
// 5893 §2) as UTS 46 §4.1 applies them, over approximations of the Unicode
// properties they need (see idna.go).

// contextJ reports whether the joiner u[i] (U+200C or U+200D) is allowed:
// after a virama; or, for U+200C, between a left- or dual-joining and a
// right- or dual-joining code point, with transparent ones around it.
func contextJ(u []rune, i int) bool {
	if i > 0 && slices.Contains(viramas, u[i-1]) {
		return true
	}
	if u[i] == zwj {
		return false
	}
	j := i - 1
	for j >= 0 && joiningType(u[j]) == 'T' {
		j--
	}
	k := i + 1
	for k < len(u) && joiningType(u[k]) == 'T' {
		k++
	}
	return j >= 0 && (joiningType(u[j]) == 'L' || joiningType(u[j]) == 'D') &&
		k < len(u) && (joiningType(u[k]) == 'R' || joiningType(u[k]) == 'D')
}

// viramas are the code points whose Canonical_Combining_Class is 9
// (Virama), Unicode 16.0.
var viramas = []rune{
	0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C,
	0x0D4D, 0x0DCA, 0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734,
	0x17D2, 0x1A60, 0x1B44, 0x1BAA, 0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C,
	0xA8C4, 0xA953, 0xA9C0, 0xAAF6, 0xABED, 0x10A3F, 0x11046, 0x11070, 0x1107F,
	0x110B9, 0x11133, 0x11134, 0x111C0, 0x11235, 0x112EA, 0x1134D, 0x113CE, 0x113CF,
	0x113D0, 0x11442, 0x114C2, 0x115BF, 0x1163F, 0x116B6, 0x1172B, 0x11839, 0x1193D,
	0x1193E, 0x119E0, 0x11A34, 0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97,
	0x11F41, 0x11F42, 0x1612F,
}

// joiningType approximates Joining_Type: 'T' (transparent) for marks and
// format characters, 'R' for the right-joining letters listed, 'L' for
// U+A872, 'D' for the other letters of the cursive scripts, 'U' otherwise.
func joiningType(r rune) byte {
	switch {
	case r == zwnj || r == zwj:
		return 'U'
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 'T'
	case inRanges(r, rightJoining):
		return 'R'
	case r == 0xA872:
		return 'L'
	case unicode.IsLetter(r) && unicode.In(r, joiningScripts...):
		return 'D'
	}
	return 'U'
}

var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian, unicode.Mandaic,
	unicode.Manichaean, unicode.Psalter_Pahlavi, unicode.Adlam, unicode.Hanifi_Rohingya,
	unicode.Sogdian, unicode.Old_Uyghur, unicode.Chorasmian, unicode.Phags_Pa,
}

// rightJoining: the right-joining (R) letters of Arabic, Syriac and
// Mandaic, which joiningType would otherwise call dual-joining.
var rightJoining = [][2]rune{
	{0x622, 0x625}, {0x627, 0x627}, {0x629, 0x629}, {0x62F, 0x632}, {0x648, 0x648},
	{0x671, 0x673}, {0x675, 0x677}, {0x688, 0x699}, {0x6C0, 0x6C0}, {0x6C3, 0x6CB},
	{0x6CD, 0x6CD}, {0x6CF, 0x6CF}, {0x6D2, 0x6D3}, {0x6D5, 0x6D5}, {0x6EE, 0x6EF},
	{0x710, 0x710}, {0x715, 0x719}, {0x71E, 0x71E}, {0x728, 0x728}, {0x72A, 0x72A},
	{0x72C, 0x72C}, {0x72F, 0x72F}, {0x74D, 0x74D}, {0x759, 0x75B}, {0x854, 0x854},
	{0x8AA, 0x8AC},
}

// Bidi classes, as far as the Bidi rule tells them apart (R stands for R
// and AL, which it treats alike).
const (
	bidiL = iota
	bidiR
	bidiAN
	bidiEN
	bidiES
	bidiCS
	bidiET
	bidiON
	bidiBN
	bidiNSM
)

// validBidiDomain is UTS 46 §4.1 criterion 8: if the domain is a Bidi
// domain name (a label holds an R, AL or AN code point), every non-empty
// label meets the Bidi rule.
func validBidiDomain(labels [][]rune) bool {
	bidi := false
	for _, l := range labels {
		bidi = bidi || slices.ContainsFunc(l, func(r rune) bool {
			c := bidiClass(r)
			return c == bidiR || c == bidiAN
		})
	}
	if !bidi {
		return true
	}
	for _, l := range labels {
		if len(l) > 0 && !bidiRule(l) {
			return false
		}
	}
	return true
}

// bidiRule is the Bidi rule of RFC 5893 §2 for one label.
func bidiRule(l []rune) bool {
	first := bidiClass(l[0])
	if first != bidiL && first != bidiR { // 1.
		return false
	}
	allowed := []int{bidiL, bidiEN, bidiES, bidiCS, bidiET, bidiON, bidiBN, bidiNSM} // 5.
	ends := []int{bidiL, bidiEN}                                                     // 6.
	if first == bidiR {
		allowed = []int{bidiR, bidiAN, bidiEN, bidiES, bidiCS, bidiET, bidiON, bidiBN, bidiNSM} // 2.
		ends = []int{bidiR, bidiEN, bidiAN}                                                     // 3.
	}
	hasEN, hasAN := false, false
	for _, r := range l {
		c := bidiClass(r)
		if !slices.Contains(allowed, c) {
			return false
		}
		hasEN, hasAN = hasEN || c == bidiEN, hasAN || c == bidiAN
	}
	if hasEN && hasAN && first == bidiR { // 4.
		return false
	}
	last := len(l) - 1
	for last > 0 && bidiClass(l[last]) == bidiNSM {
		last--
	}
	return slices.Contains(ends, bidiClass(l[last]))
}

// bidiClass approximates Bidi_Class: ASCII exactly; the Arabic number
// signs and digits listed as AN; the Extended Arabic-Indic digits as EN;
// non-spacing and enclosing marks NSM; controls and format characters BN;
// every other code point of a right-to-left script R; currency signs ET,
// other punctuation, symbols and separators ON; the rest L.
func bidiClass(r rune) int {
	switch {
	case r < 0x80:
		return asciiBidi(byte(r))
	case inRanges(r, arabicNumbers):
		return bidiAN
	case 0x06F0 <= r && r <= 0x06F9:
		return bidiEN
	case r == 0x060C:
		return bidiCS
	case r == 0x066A:
		return bidiET
	case unicode.In(r, unicode.Mn, unicode.Me):
		return bidiNSM
	case unicode.In(r, unicode.Cc, unicode.Cf):
		return bidiBN
	case r == 0x0640 || unicode.In(r, rtlScripts...):
		return bidiR
	case unicode.Is(unicode.Sc, r):
		return bidiET
	case unicode.In(r, unicode.P, unicode.S, unicode.Z):
		return bidiON
	}
	return bidiL
}

// asciiBidi is the Bidi_Class of an ASCII code point a host can hold.
func asciiBidi(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return bidiEN
	case c == '+' || c == '-':
		return bidiES
	case c == ',' || c == '.' || c == '/' || c == ':':
		return bidiCS
	case c == '#' || c == '$' || c == '%':
		return bidiET
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		return bidiL
	case c < 0x20 || c == 0x7F:
		return bidiBN
	}
	return bidiON
}

// arabicNumbers: the code points whose Bidi_Class is AN.
var arabicNumbers = [][2]rune{
	{0x600, 0x605}, {0x660, 0x669}, {0x66B, 0x66C}, {0x6DD, 0x6DD}, {0x890, 0x891},
	{0x8E2, 0x8E2}, {0x10D30, 0x10D39}, {0x10E60, 0x10E7E},
}

var rtlScripts = []*unicode.RangeTable{
	unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko,
	unicode.Samaritan, unicode.Mandaic, unicode.Adlam, unicode.Hanifi_Rohingya,
	unicode.Mende_Kikakui, unicode.Imperial_Aramaic, unicode.Phoenician, unicode.Kharoshthi,
	unicode.Old_South_Arabian, unicode.Old_North_Arabian, unicode.Avestan,
	unicode.Inscriptional_Parthian, unicode.Inscriptional_Pahlavi, unicode.Psalter_Pahlavi,
	unicode.Old_Turkic, unicode.Old_Hungarian, unicode.Lydian, unicode.Meroitic_Cursive,
	unicode.Meroitic_Hieroglyphs, unicode.Cypriot, unicode.Nabataean, unicode.Palmyrene,
	unicode.Hatran, unicode.Manichaean, unicode.Elymaic, unicode.Sogdian, unicode.Old_Sogdian,
	unicode.Yezidi, unicode.Chorasmian, unicode.Old_Uyghur,
}
