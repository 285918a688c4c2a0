package hostbridge

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestJavaScriptHostTexts pins D4 on the JavaScript host: conform/js/host.mjs
// raises exactly errors.go's exception texts. Its MSG table holds every
// sentinel's text (and the item suffix) once, byte for byte, and no other
// text, so a text edited on one side alone fails here before any adapter
// runs.
func TestJavaScriptHostTexts(t *testing.T) {
	src, err := os.ReadFile("conform/js/host.mjs")
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)export const MSG = \{\n(.*?)\n\};`).FindSubmatch(src)
	if table == nil {
		t.Fatal("conform/js/host.mjs: no MSG table")
	}
	var js []string
	for _, line := range strings.Split(string(table[1]), "\n") {
		m := regexp.MustCompile(`^  \w+: '([^'\\]*)',$`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("conform/js/host.mjs: MSG line %q is not name: 'text',", line)
		}
		js = append(js, m[1])
	}
	want := []string{MsgItemSuffix}
	for _, s := range exceptions {
		want = append(want, s.Msg)
	}
	sort.Strings(js)
	sort.Strings(want)
	if strings.Join(js, "\n") != strings.Join(want, "\n") {
		t.Errorf("host.mjs MSG texts:\n%s\nerrors.go texts:\n%s", strings.Join(js, "\n"), strings.Join(want, "\n"))
	}
}
