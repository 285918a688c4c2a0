package hostbridge

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestErrorTexts pins every text of errors.go byte for byte, written out
// here as the specs (and, where they are silent, the package's catalogue)
// word it, so that no text changes without a test changing with it. The
// texts are the app's API; the syntax reasons are only for diagnosis, but
// pinned too, so that changing one is a decision, not an accident. Every
// string constant of errors.go must have its row.
func TestErrorTexts(t *testing.T) {
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
		{"SyntaxUnexpectedEnd", SyntaxUnexpectedEnd, "Unexpected end of input"},
		{"SyntaxUnexpectedToken", SyntaxUnexpectedToken, "Unexpected token"},
		{"SyntaxBadControl", SyntaxBadControl, "Bad control character in string literal"},
		{"SyntaxBadEscape", SyntaxBadEscape, "Bad escaped character"},
		{"SyntaxBadUnicode", SyntaxBadUnicode, "Bad Unicode escape"},
		{"SyntaxUnterminated", SyntaxUnterminated, "Unterminated string"},
		{"SyntaxBadNumber", SyntaxBadNumber, "Invalid number"},
		{"SyntaxBadUTF8", SyntaxBadUTF8, "Invalid UTF-8"},
		{"SyntaxTooDeep", SyntaxTooDeep, "Nesting deeper than 1000 levels"},
		{"SyntaxAfterJSON", SyntaxAfterJSON, "Unexpected non-whitespace character after the value"},
		{"SyntaxPosition", SyntaxPosition, " in JSON at position "},
	}
	pinned := map[string]bool{}
	for _, r := range rows {
		pinned[r.name] = true
		if r.got != r.want {
			t.Errorf("%s = %q, want %q", r.name, r.got, r.want)
		}
	}
	for _, name := range stringConstants(t, "errors.go") {
		if !pinned[name] {
			t.Errorf("errors.go's %s has no row here", name)
		}
	}
	if k := []string{Violation.String(), Failure.String(), Abort.String(), Kind(9).String()}; strings.Join(k, ",") != "违规,平台故障,中止,Kind(9)" {
		t.Errorf("kinds %q", k)
	}
	if got := itemError(MsgItemNoBody, 7); got != "批量消息项缺少 body：序号 7" {
		t.Errorf("itemError: %q", got)
	}
}

// stringConstants returns the names of the constants of file whose value is
// a string literal.
func stringConstants(t *testing.T, file string) []string {
	f, err := goparser.ParseFile(token.NewFileSet(), file, nil, goparser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for i, n := range v.Names[:len(v.Values)] {
					if l, ok := v.Values[i].(*ast.BasicLit); ok && l.Kind == token.STRING {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	if len(names) < 40 {
		t.Fatalf("%s: only %d string constants found", file, len(names))
	}
	return names
}
