package hostbridge

import (
	"bufio"
	"flag"
	"os"
	"strings"
	"testing"
	"unicode"
)

var idnaOracle = flag.String("idna-oracle", "", "output of testdata/gen/idna-oracle.js, for TestIDNAOracle")

// TestIDNAValid: the approximation of "valid or deviation" (UTS 46 §5) on
// code points whose status the IDNA mapping table gives (Unicode 15.1).
func TestIDNAValid(t *testing.T) {
	for _, r := range []rune{'a', '-', 'ü', 'ß', 'ς', 'ı', 'Ꭰ', 'β', '公', 'コ', '💩', '⓫', '¡', '©', '٠',
		'\u0301', '\u094D', 'ά'} {
		if !idnaValid(r) {
			t.Errorf("idnaValid(%U %q) = false, want true", r, r)
		}
	}
	for _, r := range []rune{'Ü', 'Ａ', '\u00ad', '\u0080', 'ſ', 'µ', '²', '½', 'ꭰ', '\uFE0F', '\u3002',
		'\U0001D400', 'ǅ', '\u2028', '\u00a0', '\uE000', '\U000E0001', '\u0378', '\u200B', 'ϒ', '\u1F71', '\uFFFD'} {
		if idnaValid(r) {
			t.Errorf("idnaValid(%U %q) = true, want false", r, r)
		}
	}
}

// TestValidACEDomain: the validity criteria one by one, on decoded labels
// and domains (the Punycode is in testdata/inbound-url.json's rows).
func TestValidACEDomain(t *testing.T) {
	for _, c := range []struct {
		labels []string
		want   bool
	}{
		{[]string{"bücher"}, true},
		{[]string{""}, false},                    // empty
		{[]string{"abc"}, false},                 // only ASCII
		{[]string{"xn--ü"}, false},               // begins with xn--
		{[]string{"\u0301a"}, false},             // begins with a mark
		{[]string{"a\u0301"}, true},              // not NFC (composes to á): a known gap
		{[]string{"क\u094D\u200Dष"}, true},       // ZWJ after a virama
		{[]string{"a\u200Db"}, false},            // ZWJ elsewhere
		{[]string{"\u200Db"}, false},             // ZWJ first
		{[]string{"ب\u200Cب"}, true},             // ZWNJ between dual-joining letters
		{[]string{"ب\u064E\u200C\u064Eب"}, true}, // … with transparent marks around it
		{[]string{"ا\u200Cب"}, false},            // ZWNJ after a right-joining letter
		{[]string{"ب\u200C"}, false},             // ZWNJ last
		{[]string{"क\u094D\u200Cष"}, true},       // ZWNJ after a virama
		{[]string{"مثال", "example"}, true},      // Bidi domain: LTR label of L
		{[]string{"مثال", "1a"}, false},          // rule 1: EN first
		{[]string{"مثال", "a1"}, true},           // rule 6: ends with EN
		{[]string{"مثال", "a-"}, false},          // rule 6: ends with ES
		{[]string{"מ1"}, true},                   // rule 3: ends with EN
		{[]string{"מ١"}, true},                   // rule 3: ends with AN
		{[]string{"מ1١"}, false},                 // rule 4: EN and AN
		{[]string{"מ\u05B0"}, true},              // rule 3: NSM after R
		{[]string{"מa"}, false},                  // rule 2: L in an RTL label
		{[]string{"aמ"}, false},                  // rule 5: R in an LTR label
		{[]string{"١מ"}, false},                  // rule 1: AN first
		{[]string{"üb", "١"}, false},             // AN makes a Bidi domain; "١" fails rule 1
		{[]string{"üb", "1a"}, true},             // no Bidi domain: no Bidi rule
		{[]string{"ۿ۰"}, true},                   // U+06F0 is EN
		{[]string{"ی\u200Cک"}, true},             // Persian: ZWNJ between dual-joining letters
		{[]string{"Ü"}, false},                   // mapped
		{[]string{"a\u00ad"}, false},             // ignored
	} {
		labels := make([][]rune, len(c.labels))
		valid := true
		for i, l := range c.labels {
			labels[i] = []rune(l)
			if l != "example" && l != "1a" && l != "a1" && l != "a-" {
				valid = valid && validDecodedLabel(labels[i])
			}
		}
		if got := valid && validBidiDomain(labels); got != c.want {
			t.Errorf("%q: valid %v, want %v", c.labels, got, c.want)
		}
	}
}

// TestIDNAOracle compares the host parser with Node.js 20's new URL on the
// hosts testdata/gen/idna-oracle.js lists (run only with -idna-oracle). The
// package may refuse what node accepts where node 20 breaks UTS 46 (it
// applies no Bidi rule, and its mark table predates Unicode 14); it may
// accept what node refuses only for "a" followed by a combining mark, a
// label that is not NFC, which the package cannot check.
func TestIDNAOracle(t *testing.T) {
	if *idnaOracle == "" {
		t.Skip("no -idna-oracle file")
	}
	f, err := os.Open(*idnaOracle)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels, accepted, refused := 0, 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		for k := 1; k+1 < len(fields); k += 2 {
			host, nodeOK := fields[k], fields[k+1] == "1"
			labels++
			if _, ok := parseHost(host); ok == nodeOK {
				continue
			} else if !ok {
				refused++
				continue
			}
			accepted++
			u, _ := punycodeDecode(host[len("xn--"):])
			if len(u) != 2 || u[0] != 'a' || !unicode.Is(unicode.M, u[1]) {
				t.Errorf("%s (%q): accepted, node refuses", host, string(u))
			}
		}
	}
	if labels == 0 || sc.Err() != nil {
		t.Fatalf("%d labels read, %v", labels, sc.Err())
	}
	t.Logf("%d labels: %d accepted that node refuses, %d refused that node accepts", labels, accepted, refused)
}
