//go:build !hostbridge_ref

package hostbridge

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Tests of the fast path's own tricks (canon_fast.go, number_fast.go,
// jsonstring_fast.go), each against the simple code it replaces. What the
// tricks must compute is pinned by the rule tests in canon_test.go, which
// run on the fast path too in this build (the init below), and by
// FuzzReference and TestReferenceRandomCorpus
// (canon_reference_fast_test.go), which hold the whole fast path equal to
// the reference.

func init() { canonicalisers["fast"] = fastCanonical }

// TestFastStringRun: the eight-bytes-at-a-time scan stops at the same byte as a
// byte-at-a-time one, and says the same of the bytes before it, for every
// string of up to 11 bytes over the bytes at the edges of its tests (a
// control just below ' ', '"' and '\\' beside their neighbours, bytes
// around 0x80), from every start.
func TestFastStringRun(t *testing.T) {
	alphabet := []byte{0x00, 0x1f, ' ', '!', '"', '#', '[', '\\', ']', 'a', 0x7f, 0x80, 0xc3, 0xff}
	naive := func(src []byte, j int) (int, bool) {
		wide := false
		for ; j < len(src); j++ {
			c := src[j]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			wide = wide || c >= 0x80
		}
		return j, wide
	}
	randomBytes(7, 200000, 11, alphabet, func(src []byte) {
		for j := 0; j <= len(src); j++ {
			gotEnd, gotWide := stringRun(src, j)
			wantEnd, wantWide := naive(src, j)
			if gotEnd != wantEnd || gotWide != wantWide {
				t.Fatalf("stringRun(%q, %d) = %d, %v; want %d, %v", src, j, gotEnd, gotWide, wantEnd, wantWide)
			}
		}
	})
}

// TestFastAlreadyShortest: whenever alreadyShortest says a decimal's digits are
// the ones Number::toString writes for its double, strconv's shortest
// digits of that double are those digits. The decimals are the shortest
// forms of random doubles from 1e-12 to 1e19 (where it should say so, and
// mostly does: the test fails if it says so for fewer than 90%), and those
// forms changed: the last digit moved by one either way, a digit added,
// the last digit dropped.
func TestFastAlreadyShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	var said, tried int
	check := func(m uint64, q int, want bool) {
		got := alreadyShortest(m, q)
		if want {
			tried++
			if got {
				said++
			}
		}
		if !got {
			return
		}
		f, err := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e-"+strconv.Itoa(q), 64)
		if err != nil {
			t.Fatal(err)
		}
		digits, exp := shortestDigits(f)
		if digits != strconv.FormatUint(m, 10) || exp != len(digits)-q {
			t.Fatalf("alreadyShortest(%d, %d) = true, but the double %v is 0.%s × 10^%d", m, q, f, digits, exp)
		}
	}
	for n := 0; n < 400000; n++ {
		f := math.Pow(10, -12+31*r.Float64())
		if n < 3000 {
			// Powers of two and their neighbours, where the gaps to the
			// doubles either side differ.
			f = math.Nextafter(math.Ldexp(1, -40+n/30), math.Inf(n%30-15))
			for k := n % 15; k > 0; k-- {
				f = math.Nextafter(f, math.Inf(n%30-15))
			}
		}
		digits, exp := shortestDigits(f)
		m, _ := strconv.ParseUint(digits, 10, 64)
		q := len(digits) - exp
		if m < 1e15 {
			// Fewer than 16 digits need no vouching. Make it long.
			for m < 1e15 {
				m, q = m*10+uint64(1+r.IntN(9)), q+1
			}
			check(m, q, false)
			continue
		}
		inRange := 0 <= q && q <= maxPow5 && math.Float64bits(f)&(1<<52-1) != 0
		check(m, q, inRange)
		check(m+1, q, false)
		if m%10 != 1 {
			check(m-1, q, false)
		}
		if m < 1e18 {
			check(m*10+uint64(1+r.IntN(9)), q+1, false)
		}
		if m/10%10 != 0 && m >= 1e16 {
			check(m/10, q-1, false)
		}
	}
	if said < tried*9/10 {
		t.Errorf("alreadyShortest said so of %d of %d shortest forms", said, tried)
	}
	t.Logf("alreadyShortest said so of %d of %d shortest forms", said, tried)
}

// TestFastAlreadyShortestPowersOfTwo: near a power of two the gaps to the
// doubles either side differ. For every power of two in alreadyShortest's
// range, every decimal of 16 to 19 digits that can read back as it (all
// within a few thousand steps of the nearest one) gets the answer strconv
// gives, whenever alreadyShortest says so.
func TestFastAlreadyShortestPowersOfTwo(t *testing.T) {
	for k := -40; k <= 63; k++ {
		f := math.Ldexp(1, k)
		for digits := 16; digits <= 19; digits++ {
			s := strconv.FormatFloat(f, 'e', digits-1, 64)
			mant, e, _ := strings.Cut(s, "e")
			exp, _ := strconv.Atoi(e)
			m0, _ := strconv.ParseUint(strings.Replace(mant, ".", "", 1), 10, 64)
			q := digits - 1 - exp
			for m := m0 - 3000; m <= m0+3000; m++ {
				if !alreadyShortest(m, q) {
					continue
				}
				g, err := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e-"+strconv.Itoa(q), 64)
				if err != nil {
					t.Fatal(err)
				}
				if d, n := shortestDigits(g); d != strconv.FormatUint(m, 10) || n != len(d)-q {
					t.Fatalf("alreadyShortest(%d, %d) = true, but the double %v is 0.%s × 10^%d", m, q, g, d, n)
				}
			}
		}
	}
}

// TestFastKeysMapped: an object's keys are looked up in a map, not by
// scanning its members, by its 65th key at the latest, whatever the keys
// (keyBit's 64 bits are full by then), and an object of 16 keys or fewer is
// never mapped. Keys of one length and first and last characters share a
// keyBit, so those objects are mapped at their 17th key.
func TestFastKeysMapped(t *testing.T) {
	// mappedAt is the key at which the object {keys…} (left open) is
	// mapped, or 0.
	mappedAt := func(keys []string) int {
		for n := range keys {
			p := &parser{src: []byte(`{"` + strings.Join(keys[:n+1], `":0,"`) + `":0`), o: &canonOptions{}}
			if _, _, err := p.value(0); err == nil || len(p.stack) != 1 {
				t.Fatalf("keys %q: want an unterminated object, got %v", keys[:n+1], err)
			}
			if p.stack[0].mapped {
				return n + 1
			}
		}
		return 0
	}
	r := rand.New(rand.NewPCG(11, 65))
	for trial := 0; trial < 200; trial++ {
		seen := map[string]bool{}
		var keys, same []string
		for len(keys) < 65 {
			if k := strconv.FormatUint(r.Uint64()>>r.IntN(64), 36); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
				same = append(same, "a"+strconv.Itoa(1000+len(keys))+"z")
			}
		}
		if n := mappedAt(keys); n < 17 {
			t.Fatalf("keys %q: mapped at key %d (0: never), want 17 to 65", keys, n)
		}
		if n := mappedAt(same); n != 17 {
			t.Fatalf("keys %q: mapped at key %d (0: never), want 17", same, n)
		}
	}
}
