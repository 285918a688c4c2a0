package hostbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// errorsGoTexts returns the exception texts of errors.go by constant name,
// and the constant each Err variable is built from, read from the source so
// that a new constant without a sentinel cannot go unnoticed.
func errorsGoTexts(t *testing.T) (texts map[string]string, sentinelOf map[string]string) {
	t.Helper()
	f, err := goparser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	texts, sentinelOf = map[string]string{}, map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				switch {
				case g.Tok == token.CONST && strings.HasPrefix(name.Name, "Msg"):
					s, err := strconv.Unquote(v.Values[i].(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					texts[name.Name] = s
				case g.Tok == token.VAR && strings.HasPrefix(name.Name, "Err"):
					arg := v.Values[i].(*ast.CallExpr).Args[1].(*ast.Ident)
					sentinelOf[name.Name] = arg.Name
				}
			}
		}
	}
	return texts, sentinelOf
}

// TestErrorSentinels: every exception text of errors.go (all Msg constants
// but the item suffix) has exactly one sentinel, named after it, in the
// list Error.Is chooses from.
// Pins D6.
func TestErrorSentinels(t *testing.T) {
	// Pins Q42.
	texts, sentinelOf := errorsGoTexts(t)
	delete(texts, "MsgItemSuffix")
	if len(texts) < 36 {
		t.Fatalf("read %d texts from errors.go", len(texts))
	}
	for errName, msgName := range sentinelOf {
		if errName != "Err"+strings.TrimPrefix(msgName, "Msg") {
			t.Errorf("%s is built from %s", errName, msgName)
		}
	}
	inList := map[string]bool{}
	for _, s := range exceptions {
		if inList[s.Msg] {
			t.Errorf("%q twice in exceptions", s.Msg)
		}
		inList[s.Msg] = true
	}
	for name, text := range texts {
		if _, ok := sentinelOf["Err"+strings.TrimPrefix(name, "Msg")]; !ok {
			t.Errorf("%s has no sentinel", name)
		}
		if !inList[text] {
			t.Errorf("%s is not in exceptions", name)
		}
	}
	if len(exceptions) != len(texts) {
		t.Errorf("%d sentinels for %d texts", len(exceptions), len(texts))
	}
}

// errorCase is a call that raises one exception, with the exact Msg it must
// carry.
type errorCase struct {
	name     string
	sentinel *Error
	err      error
	msg      string
}

// producerErrorCases raise every producer exception, with and without an
// item suffix, through the public functions.
func producerErrorCases() []errorCase {
	p := NewMemoryPlatform()
	p.Bind("Q", "q")
	p.GrantJSON(`{"QUEUE":["Q"]}`)
	ctx := context.Background()
	send := func(binding, body string, delay int) error { return SendQueueMessage(ctx, p, binding, body, delay) }
	batch := func(text string) error { return SendQueueBatch(ctx, p, "Q", text) }
	str := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	item := func(body string) string { return `{"body":` + body + `}` }
	many := "[" + strings.TrimSuffix(strings.Repeat(item("1")+",", 101), ",") + "]"
	deep := strings.Repeat("[", 25) + strings.Repeat("]", 25)
	return []errorCase{
		{"empty binding", ErrEmptyBinding, send("", "1", 0), MsgEmptyBinding},
		{"binding", ErrBindingNotGranted, send("OTHER", "1", 0), MsgBindingNotGranted + "OTHER"},
		{"not JSON", ErrBodyNotJSON, send("Q", "{", 0), MsgBodyNotJSON},
		{"too large", ErrBodyTooLarge, send("Q", str(128000), 0), MsgBodyTooLarge},
		{"too deep", ErrBodyTooDeep, send("Q", deep, 0), MsgBodyTooDeep},
		{"marker", ErrBodyMarker, send("Q", `{"$句柄":1}`, 0), MsgBodyMarker},
		{"infinite", ErrBodyNotFinite, send("Q", "1e999", 0), MsgBodyNotFinite},
		{"delay", ErrDelayRange, send("Q", "1", 43201), MsgDelayRange},
		{"send failed", ErrSendFailed, func() error { p.FailNext("Queue is full"); return send("Q", "1", 0) }(),
			MsgSendFailed + "Queue is full"},
		{"batch send failed", ErrBatchSendFailed, func() error { p.FailNext("Queue is full"); return batch("[" + item("1") + "]") }(),
			MsgBatchSendFailed + "Queue is full"},
		{"not array", ErrBatchNotArray, batch(`{}`), MsgBatchNotArray},
		{"empty", ErrBatchEmpty, batch(`[]`), MsgBatchEmpty},
		{"too many", ErrBatchTooMany, batch(many), MsgBatchTooMany},
		{"batch too large", ErrBatchTooLarge, batch("[" + item("1") + strings.Repeat(" ", 1<<20) + "]"), MsgBatchTooLarge},
		{"bodies total", ErrBatchBodiesTotal, batch("[" + item(str(100000)) + "," + item(str(100000)) + "," + item(str(100000)) + "]"),
			MsgBatchBodiesTotal},
		{"item not object", ErrItemNotObject, batch(`[{"body":1},2]`), MsgItemNotObject + "：序号 1"},
		{"item no body", ErrItemNoBody, batch(`[{}]`), MsgItemNoBody + "：序号 0"},
		{"item key", ErrItemBadKey, batch(`[{"body":1,"contentType":"json"}]`), MsgItemBadKey + "contentType：序号 0"},
		{"item body", ErrBodyNotFinite, batch(`[{"body":1},{"body":1},{"body":1},{"body":-1e400}]`), MsgBodyNotFinite + "：序号 3"},
		{"item too large", ErrBodyTooLarge, batch("[" + item(str(128000)) + "]"), MsgBodyTooLarge + "：序号 0"},
		{"item delay", ErrDelayRange, batch(`[{"body":1,"delaySeconds":1.5}]`), MsgDelayRange + "：序号 0"},
	}
}

// consumerErrorCases raise every consumer exception.
func consumerErrorCases() []errorCase {
	queue := func(body any) Event {
		return testEvent{kind: "queue", batch: NewBatchRecord("q", []Message{{ID: "a", Attempts: 1, Body: body}})}
	}
	read := func(ev Event) error { _, err := ReadQueueBatch(ev); return err }
	deep := json.RawMessage(strings.Repeat("[", 33) + strings.Repeat("]", 33))
	return []errorCase{
		{"not queue", ErrNotQueueEvent, read(testEvent{kind: "fetch"}), MsgNotQueueEvent},
		{"index", ErrMessageIndex, AckQueueMessage(queue(json.RawMessage("1")), 1), MsgMessageIndex},
		{"retry delay", ErrDelayRange, RetryQueueMessage(queue(json.RawMessage("1")), 0, 43201), MsgDelayRange},
		{"not JSON value", ErrMessageNotJSON, read(queue("a Go string")), MsgMessageNotJSON + "0"},
		{"message too deep", ErrMessageTooDeep, read(queue(deep)), MsgMessageTooDeep + "0"},
	}
}

// inboundErrorCases raise every 网页入站 exception.
func inboundErrorCases() []errorCase {
	get := func(url string) Event { return NewRequestEvent("fetch", "GET", url, nil, nil) }
	post := func(chunks ...[]byte) Event {
		return NewRequestEvent("fetch", "POST", "https://a.example/", nil, &FakeBody{Chunks: chunks})
	}
	ev := get("https://a.example/%FF")
	_, noRequest := InboundMethod(testEvent{kind: "scheduled"})
	_, path := InboundDecodedPath(ev)
	_, header := InboundHeader(ev, "bad name")
	_, sameOrigin := InboundSameOriginURL(ev, "//evil.example/", nil, nil)
	_, list := InboundSameOriginURL(ev, "/", nil, make([]string, 17))
	_, _, limit := ReadInboundText(ev, 0)
	_, _, lenient := ReadInboundText(post([]byte(strings.Repeat("\xff", 6<<20))), 16<<20)
	_, _, readFailed := ReadInboundBytes(NewRequestEvent("fetch", "POST", "https://a.example/", nil,
		&FakeBody{Chunks: [][]byte{[]byte("ab")}, Err: errors.New("connection reset")}), 10)
	_, jsonTooLarge := ReadInboundJSON(post([]byte(`"` + strings.Repeat("a", 2<<20) + `"`)))
	_, jsonInvalid := ReadInboundJSON(post([]byte(`{bad`)))
	_, jsonNone := ReadInboundJSON(ev)
	used := post([]byte("1"))
	ReadInboundBytes(used, 10)
	_, jsonUsed := ReadInboundJSON(used)
	_, _, jsonLimit := ReadInboundBoundedJSON(ev, 8<<20+1)
	_, requestURL := InboundOrigin(get("https://bücher.example/"))
	return []errorCase{
		{"no request", ErrNoRequest, noRequest, MsgNoRequest},
		{"path", ErrPathEncoding, path, MsgPathEncoding},
		{"header name", ErrHeaderName, header, MsgHeaderName},
		{"same-origin path", ErrSameOriginPath, sameOrigin, MsgSameOriginPath},
		{"same-origin list", ErrSameOriginList, list, MsgSameOriginList},
		{"body limit", ErrBodyLimitRange, limit, MsgBodyLimitRange},
		{"lenient", ErrLenientTooLong, lenient, MsgLenientTooLong},
		{"read failed", ErrBodyReadFailed, readFailed, MsgBodyReadFailed + "connection reset"},
		{"JSON too large", ErrJSONBodyTooLarge, jsonTooLarge, MsgJSONBodyTooLarge},
		{"JSON invalid", ErrJSONBodyInvalid, jsonInvalid, MsgJSONBodyInvalid + "SyntaxError: Unexpected token 'b' in JSON at position 1"},
		{"JSON none", ErrJSONBodyNone, jsonNone, MsgJSONBodyNone},
		{"JSON used", ErrJSONBodyUsed, jsonUsed, MsgJSONBodyUsed},
		{"JSON limit", ErrJSONLimitRange, jsonLimit, MsgJSONLimitRange},
		{"request URL", ErrRequestURL, requestURL, MsgRequestURL},
	}
}

// TestErrorsIs raises every exception through the public functions: the
// error is an *Error whose Msg is the exact text and whose Kind is the
// sentinel's, errors.Is matches its sentinel, also wrapped, and no other.
// Pins D5, D6.
func TestErrorsIs(t *testing.T) {
	// Pins Q8, Q17, Q47, Q48, Q49, I122, I124.
	cases := append(append(producerErrorCases(), consumerErrorCases()...), inboundErrorCases()...)
	raised := map[*Error]bool{}
	for _, c := range cases {
		var e *Error
		if !errors.As(c.err, &e) {
			t.Errorf("%s: %v is not an *Error", c.name, c.err)
			continue
		}
		raised[c.sentinel] = true
		if e.Msg != c.msg || e.Kind != c.sentinel.Kind {
			t.Errorf("%s: %v %q, want %v %q", c.name, e.Kind, e.Msg, c.sentinel.Kind, c.msg)
		}
		for _, s := range exceptions {
			if got := errors.Is(c.err, s); got != (s == c.sentinel) {
				t.Errorf("%s: errors.Is(%q, sentinel %q) = %v", c.name, e.Msg, s.Msg, got)
			}
		}
		if !errors.Is(fmt.Errorf("wrapped: %w", c.err), c.sentinel) {
			t.Errorf("%s: wrapped, errors.Is is false", c.name)
		}
	}
	for _, s := range exceptions {
		if !raised[s] {
			t.Errorf("no call raised %q", s.Msg)
		}
	}
}

// TestErrorIsStrict: Is matches only a sentinel, of the same Kind, and
// still unwraps to the cause; an error that is no exception is not a nil
// *Error (false, never a panic); no two sentinels share a text.
// Pins D6.
func TestErrorIsStrict(t *testing.T) {
	cause := errors.New("connection reset")
	err := &Error{Kind: Failure, Msg: MsgSendFailed + cause.Error(), Err: cause}
	if !errors.Is(err, ErrSendFailed) || !errors.Is(err, cause) {
		t.Error("a send failure is ErrSendFailed and its cause")
	}
	p := NewMemoryPlatform()
	p.Bind("Q", "q")
	p.Grant("Q")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SendQueueMessage(ctx, p, "Q", "1", 0); !errors.Is(err, ErrSendFailed) || !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled send: %v, want ErrSendFailed wrapping context.Canceled", err)
	}
	if errors.Is(err, &Error{Kind: Failure, Msg: MsgSendFailed}) {
		t.Error("an *Error that is not a sentinel matched")
	}
	if errors.Is(&Error{Kind: Abort, Msg: MsgBodyTooLarge}, ErrBodyTooLarge) {
		t.Error("an Abort matched a Violation's sentinel")
	}
	if errors.Is(&Error{Kind: Violation, Msg: "消息体"}, ErrBodyTooLarge) {
		t.Error("a prefix of the text matched")
	}
	if !errors.Is(ErrJSONBodyNone, ErrJSONBodyNone) || errors.Is(ErrJSONBodyNone, ErrJSONBodyInvalid) {
		t.Error("the longest prefix must win: 没有正文 is its own exception")
	}
	var none *Error
	if errors.Is(&Error{Kind: Violation, Msg: "no exception's text"}, none) {
		t.Error("an error that is no exception is a nil *Error")
	}
	texts := map[string]bool{} // so that the longest prefix is one sentinel
	for _, s := range exceptions {
		if texts[s.Msg] {
			t.Errorf("two sentinels share the text %q", s.Msg)
		}
		texts[s.Msg] = true
	}
}

// TestErrorTexts pins every text of errors.go byte for byte, written out
// here as the specs (and, where they are silent, the package's catalogue)
// word it, so that no text changes without a test changing with it. The
// texts are the app's API; the syntax reasons are only for diagnosis, but
// pinned too, so that changing one is a decision, not an accident. Every
// Msg constant of errors.go must have its row.
// Pins D4.
func TestErrorTexts(t *testing.T) {
	// Pins Q25, Q42, Q43, Q44, Q45, Q46, Q47, Q48, Q51, Q58, Q65, I5, I10, I44,
	//   I48, I69, I81, I82, I90, I122.
	rows := []struct{ name, got, want string }{
		{"MsgEmptyBinding", MsgEmptyBinding, "队列绑定名不能为空"},
		{"MsgBindingNotGranted", MsgBindingNotGranted, "队列绑定未授权或未配置："},
		{"MsgBodyNotJSON", MsgBodyNotJSON, "消息体不是有效的 JSON 文字"},
		{"MsgBodyTooLarge", MsgBodyTooLarge, "消息体超过 128000 字节"},
		{"MsgBodyTooDeep", MsgBodyTooDeep, "消息体嵌套超过 24 层"},
		{"MsgBodyMarker", MsgBodyMarker, "消息体含宿主专用记号"},
		{"MsgBodyNotFinite", MsgBodyNotFinite, "消息体含非有限数字"},
		{"MsgDelayRange", MsgDelayRange, "延迟秒数须在 0 至 43200 之间"},
		{"MsgSendFailed", MsgSendFailed, "队列发送失败："},
		{"MsgBatchSendFailed", MsgBatchSendFailed, "队列批量发送失败："},
		{"MsgBatchNotArray", MsgBatchNotArray, "批量消息不是有效的 JSON 数组"},
		{"MsgBatchEmpty", MsgBatchEmpty, "批量消息不得少于 1 条"},
		{"MsgBatchTooMany", MsgBatchTooMany, "批量消息不得超过 100 条"},
		{"MsgBatchTooLarge", MsgBatchTooLarge, "批量消息超过 1 MiB"},
		{"MsgBatchBodiesTotal", MsgBatchBodiesTotal, "批量消息合计超过 256000 字节"},
		{"MsgItemNotObject", MsgItemNotObject, "批量消息项不是对象"},
		{"MsgItemNoBody", MsgItemNoBody, "批量消息项缺少 body"},
		{"MsgItemBadKey", MsgItemBadKey, "批量消息项含不允许的字段 "},
		{"MsgItemSuffix", MsgItemSuffix, "：序号 "},
		{"MsgNotQueueEvent", MsgNotQueueEvent, "当前事件不是队列事件"},
		{"MsgMessageIndex", MsgMessageIndex, "队列消息序号越界"},
		{"MsgMessageNotJSON", MsgMessageNotJSON, "队列消息正文不是 JSON 值：序号 "},
		{"MsgMessageTooDeep", MsgMessageTooDeep, "队列消息正文嵌套超过 32 层：序号 "},
		{"MsgNoRequest", MsgNoRequest, "当前没有 HTTP 请求"},
		{"MsgPathEncoding", MsgPathEncoding, "入站路径编码无效"},
		{"MsgHeaderName", MsgHeaderName, "入站标头名称无效"},
		{"MsgSameOriginPath", MsgSameOriginPath, "同源网址路径无效"},
		{"MsgSameOriginList", MsgSameOriginList, "同源网址的设置或删除列表超过 16 项"},
		{"MsgBodyLimitRange", MsgBodyLimitRange, "入站正文字节上限须在 1 至 16777216"},
		{"MsgLenientTooLong", MsgLenientTooLong, "宽松解码后的文字超过 16 MiB"},
		{"MsgBodyReadFailed", MsgBodyReadFailed, "读取入站正文失败："},
		{"MsgJSONBodyTooLarge", MsgJSONBodyTooLarge, "入站 JSON 正文超过 2 MiB"},
		{"MsgJSONBodyInvalid", MsgJSONBodyInvalid, "入站 JSON 正文无效："},
		{"MsgJSONBodyNone", MsgJSONBodyNone, "入站 JSON 正文无效：没有正文"},
		{"MsgJSONBodyUsed", MsgJSONBodyUsed, "入站 JSON 正文无效：正文已被读取"},
		{"MsgJSONLimitRange", MsgJSONLimitRange, "入站 JSON 正文字节上限须在 1 至 8388608"},
		{"MsgRequestURL", MsgRequestURL, "入站请求网址无效"},
		{"SyntaxPrefix", SyntaxPrefix, "SyntaxError: "},
		{"syntaxUnexpectedEnd", syntaxUnexpectedEnd, "Unexpected end of input"},
		{"syntaxUnexpectedToken", syntaxUnexpectedToken, "Unexpected token"},
		{"syntaxBadControl", syntaxBadControl, "Bad control character in string literal"},
		{"syntaxBadEscape", syntaxBadEscape, "Bad escaped character"},
		{"syntaxBadUnicode", syntaxBadUnicode, "Bad Unicode escape"},
		{"syntaxUnterminated", syntaxUnterminated, "Unterminated string"},
		{"syntaxBadNumber", syntaxBadNumber, "Invalid number"},
		{"syntaxBadUTF8", syntaxBadUTF8, "Invalid UTF-8"},
		{"syntaxTooDeep", syntaxTooDeep, "Nesting deeper than 1000 levels"},
		{"syntaxAfterJSON", syntaxAfterJSON, "Unexpected non-whitespace character after the value"},
		{"syntaxPosition", syntaxPosition, " in JSON at position "},
	}
	pinned := map[string]bool{}
	for _, r := range rows {
		pinned[r.name] = true
		if r.got != r.want {
			t.Errorf("%s = %q, want %q", r.name, r.got, r.want)
		}
	}
	texts, _ := errorsGoTexts(t)
	for name := range texts {
		if !pinned[name] {
			t.Errorf("errors.go's %s has no row here", name)
		}
	}
	if k := []string{Violation.String(), Failure.String(), Abort.String(), ErrorKind(9).String()}; strings.Join(k, ",") != "违规,平台故障,中止,ErrorKind(9)" {
		t.Errorf("kinds %q", k)
	}
	if got := itemError(MsgItemNoBody, 7); got != "批量消息项缺少 body：序号 7" {
		t.Errorf("itemError: %q", got)
	}
}

// TestErrorKindZero pins D5: the zero value of an Error's Kind is none of
// the three kinds, and the three are distinct.
func TestErrorKindZero(t *testing.T) {
	var e Error
	for _, k := range []struct {
		name string
		is   bool
	}{{"Violation", e.Kind == Violation}, {"Failure", e.Kind == Failure}, {"Abort", e.Kind == Abort}} {
		if k.is {
			t.Errorf("the zero Kind is %s", k.name)
		}
	}
	if Violation == Failure || Failure == Abort || Violation == Abort {
		t.Error("two kinds are equal")
	}
}

// TestViolationsBeyondTheList: a decoded path's bad percent-encoding and
// both same-origin errors are Violations (catchable, a fixed text), like
// the three cases the spec's 违规 paragraph lists.
func TestViolationsBeyondTheList(t *testing.T) {
	// Pins D52, I122.
	ev := NewRequestEvent(EventFetch, "GET", "https://example.com/a%zz", nil, nil)
	_, err := InboundDecodedPath(ev)
	checkError(t, err, &wantError{"violation", "入站路径编码无效"})
	_, err = InboundSameOriginURL(ev, "//x", nil, nil)
	checkError(t, err, &wantError{"violation", "同源网址路径无效"})
	_, err = InboundSameOriginURL(ev, "", nil, make([]string, 17))
	checkError(t, err, &wantError{"violation", "同源网址的设置或删除列表超过 16 项"})
}

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
