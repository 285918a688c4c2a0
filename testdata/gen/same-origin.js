// Generates testdata/inbound-same-origin.json: the rows of 构造入站同源网址
// (InboundSameOriginURL in Go), computed the way a JavaScript host computes
// them, with the WHATWG URL and URLSearchParams of the running Node.js.
//
//   node testdata/gen/same-origin.js > testdata/inbound-same-origin.json
//
// Generated with Node.js v20.20.2. Node 20's URL parser (ada 2.x) predates the
// URL Standard change that put U+005E (^) in the path percent-encode set; the
// rows it affects are listed in CORRECTIONS below, marked "node20_differs" in
// the output with node's value kept in "node20", and "want" corrected by hand
// to the current standard (WPT urltestdata.json agrees: "^" → "%5E" in paths).
"use strict";

const MAX_ITEMS = 16;
const PATH_MSG = "同源网址路径无效";
const LIST_MSG = "同源网址的设置或删除列表超过 16 项";

// sameOriginURL is the JS host: the spec's checks in the spec's order, then
// URL and URLSearchParams. A lone surrogate cannot reach it from 豫言 (its
// strings are UTF-8), so the "invalid UTF-8" rule has no JS counterpart.
function sameOriginURL(requestURL, path, set, del) {
  if (path !== "") {
    if (!path.startsWith("/") || path.includes("//") || /[\\?#\u0000-\u001F\u007F-\u009F]/.test(path)) {
      return { error: { kind: "violation", message: PATH_MSG } };
    }
  }
  if (set.length > MAX_ITEMS || del.length > MAX_ITEMS) {
    return { error: { kind: "violation", message: LIST_MSG } };
  }
  const u = new URL(requestURL);
  if (path !== "") u.pathname = path;
  for (const k of del) u.searchParams.delete(k);
  for (const [k, v] of set) u.searchParams.set(k, v);
  u.hash = ""; // Request.url never has one
  return { want: u.href };
}

const many = (n, f) => Array.from({ length: n }, (_, i) => f(i));

// [情境, request URL, path, set, del]
const rows = [
  // Path rules, each way.
  ["空路径保留原路径", "https://example.com/a/b?x=1", "", [], []],
  ["根路径", "https://example.com/a/b?x=1", "/", [], []],
  ["新绝对路径", "https://example.com/a/b?x=1", "/c/d", [], []],
  ["路径末尾斜线保留", "https://example.com/a", "/c/", [], []],
  ["路径不以 / 起首", "https://example.com/a", "c/d", [], []],
  ["路径以 // 起首", "https://example.com/a", "//evil.example/x", [], []],
  ["路径中间含 //", "https://example.com/a", "/a//b", [], []],
  ["路径含反斜线", "https://example.com/a", "/a\\b", [], []],
  ["路径以反斜线起首", "https://example.com/a", "\\a", [], []],
  ["路径含 ?", "https://example.com/a", "/a?b=1", [], []],
  ["路径含 #", "https://example.com/a", "/a#b", [], []],
  ["路径含 NUL", "https://example.com/a", "/a\u0000b", [], []],
  ["路径含制表符", "https://example.com/a", "/a\tb", [], []],
  ["路径含换行", "https://example.com/a", "/a\nb", [], []],
  ["路径含 U+001F", "https://example.com/a", "/a\u001Fb", [], []],
  ["路径含 DEL", "https://example.com/a", "/a\u007Fb", [], []],
  ["路径含 U+0080", "https://example.com/a", "/a\u0080b", [], []],
  ["路径含 U+009F", "https://example.com/a", "/a\u009Fb", [], []],
  ["路径含 U+00A0 不是控制字符", "https://example.com/a", "/a\u00A0b", [], []],
  ["路径含 U+2028 不是 Cc", "https://example.com/a", "/a\u2028b", [], []],
  ["路径无效且列表超限：先报路径", "https://example.com/a", "x", many(17, (i) => ["k" + i, "v"]), []],
  // Path normalisation, as the pathname setter does for a special URL.
  ["路径空格编码", "https://example.com/", "/a b", [], []],
  ["路径 ^ 编码为 %5E", "https://example.com/", "/a^b", [], []],
  ["路径百分号编码集", "https://example.com/", "/\"<>`{}|'!$&()*+,;=:@[]~%", [], []],
  ["路径非 ASCII 按 UTF-8 编码", "https://example.com/", "/中文/é/😀", [], []],
  ["路径已编码的保持", "https://example.com/", "/a%20b/%2F/%zz", [], []],
  ["路径 . 段", "https://example.com/", "/a/./b/.", [], []],
  ["路径 .. 段", "https://example.com/", "/a/b/../c", [], []],
  ["路径 .. 越过根", "https://example.com/", "/../../a", [], []],
  ["路径末尾 ..", "https://example.com/", "/a/b/..", [], []],
  ["路径 %2e%2e 段", "https://example.com/", "/a/b/%2e%2e/c", [], []],
  ["路径 %2E. 与 .%2e 段", "https://example.com/", "/a/b/%2E./.%2e/c", [], []],
  ["路径 %2e 段", "https://example.com/", "/a/%2e/b/%2E", [], []],
  ["路径 ... 不是点段", "https://example.com/", "/a/.../b", [], []],
  ["路径 %2e%2e%2e 不是点段", "https://example.com/", "/a/%2e%2e%2e", [], []],
  // Lists: limits at 16 and 17, for each list.
  ["设置 16 项", "https://example.com/", "", many(16, (i) => ["k" + i, "v" + i]), []],
  ["设置 17 项", "https://example.com/", "", many(17, (i) => ["k" + i, "v" + i]), []],
  ["删除 16 项", "https://example.com/?k0=1&k15=2&z=3", "", [], many(16, (i) => "k" + i)],
  ["删除 17 项", "https://example.com/?k0=1", "", [], many(17, (i) => "k" + i)],
  ["两个列表各 16 项", "https://example.com/?k1=x", "", many(16, (i) => ["s" + i, ""]), many(16, (i) => "k" + i)],
  // Delete, then set.
  ["先删后设：同名键", "https://example.com/p?a=1&b=2", "", [["a", "new"]], ["a"]],
  ["先删后设：设置的键在末尾", "https://example.com/p?a=1&b=2", "", [["a", "new"]], ["a", "b"]],
  ["删除同名的全部", "https://example.com/p?a=1&b=2&a=3", "", [], ["a"]],
  ["删除不存在的键", "https://example.com/p?a=1", "", [], ["zz"]],
  ["删除空名", "https://example.com/p?a=1&=2&=&b", "", [], [""]],
  ["设置替换第一个并删去其余", "https://example.com/p?a=1&b=2&a=3&a=4", "", [["a", "x"]], []],
  ["设置新键追加", "https://example.com/p?a=1", "", [["b", "2"]], []],
  ["连续设置同名键", "https://example.com/p?a=1", "", [["a", "2"], ["a", "3"]], []],
  ["设置空值", "https://example.com/p", "", [["after", ""]], []],
  ["设置的键值由宿主编码", "https://example.com/p", "", [["a b&c=d", "é +%/?#"]], []],
  ["设置非 ASCII 与 emoji", "https://example.com/p", "", [["名", "值😀"]], []],
  ["设置 ^ 与 ~ 与 *", "https://example.com/p", "", [["^~*", "-._!'()"]], []],
  // Re-serialisation even when nothing changed.
  ["删除不存在的键仍重写查询", "https://example.com/p?a=%20b+c&d=%7e&e=,", "", [], ["zz"]],
  ["设置同值仍重写查询", "https://example.com/p?a=b%2Cc", "", [["a", "b,c"]], []],
  ["重写：坏百分号与坏 UTF-8", "https://example.com/p?%zz=1&%E9=2", "", [], ["none"]],
  // A query byte that is not UTF-8: the browser rule (U+FFFD), not workerd's raw byte.
  ["查询 %ff 按浏览器规则重写为 U+FFFD", "https://example.com/p?a=%ff", "", [["x", "1"]], []],
  ["查询名 %ff 即 U+FFFD：删除", "https://example.com/p?%ff=1&b=2", "", [], ["\uFFFD"]],
  ["重写：无值的键得 =", "https://example.com/p?a&b", "", [], ["none"]],
  ["重写：空段删去", "https://example.com/p?&&a=1&&", "", [], ["none"]],
  ["重写：?? 起首", "https://example.com/p??a=b", "", [], ["none"]],
  // Empty result leaves no "?".
  ["删光后不留 ?", "https://example.com/p?a=1&a=2", "", [], ["a"]],
  ["孤立 ? 删除后不留 ?", "https://example.com/p?", "", [], ["a"]],
  ["只有空段的查询删除后不留 ?", "https://example.com/p?&&", "", [], ["a"]],
  // Both lists empty: the raw query, byte for byte.
  ["两个列表皆空：原查询逐字节保留", "https://example.com/p?a=%20b+c&d=%7e&e=,&%zz&x=y=z", "", [], []],
  ["两个列表皆空：孤立 ? 保留", "https://example.com/p?", "", [], []],
  ["两个列表皆空：没有查询", "https://example.com/p", "", [], []],
  ["两个列表皆空：换路径保留查询", "https://example.com/p?q=%E4%B8%AD&'", "/new", [], []],
  // Origins.
  ["端口保留", "http://example.com:8080/a?x", "/b", [["y", "1"]], []],
  ["IPv6 主机", "http://[::1]:8080/a", "/b", [], []],
  ["IPv4 主机", "https://127.0.0.1/a", "/b", [], []],
  ["片段删去", "https://example.com/a?x=1#frag", "", [], []],
  ["片段删去且改查询", "https://example.com/a?x=1#frag", "", [["x", "2"]], []],
  ["路径与查询一起改", "https://example.com/old?keep=1&drop=2&k=3", "/new/./x/../y", [["k", "4"], ["n", "5"]], ["drop"]],
];

// name → the value the current URL Standard gives where Node 20 differs.
const CORRECTIONS = {
  "路径 ^ 编码为 %5E": "https://example.com/a%5Eb",
};

const out = {
  spec: "网页入站 0.8.0",
  table: "构造入站同源网址 (rows written by us; no spec table)",
  description:
    "构造入站同源网址 rows: url is Request.url, then path, set (name-value pairs) and del (keys), then the fragment cleared; want is the URL returned, or error the exception ({kind, message} as in README.md). Generated by testdata/gen/same-origin.js with the URL and URLSearchParams of Node.js " +
    process.version +
    " as a JavaScript host uses them (new URL, pathname setter, searchParams.delete then .set, href). Rows marked node20_differs were corrected by hand to the current WHATWG URL Standard (path percent-encode set includes ^); node20 keeps node's value.",
  source: "testdata/gen/same-origin.js (node " + process.version + ")",
  rows: [],
};
for (const [name, raw, path, set, del] of rows) {
  const url = new URL(raw).href; // Request.url is always a serialisation
  const row = { 情境: name, url, path, set, del, ...sameOriginURL(url, path, set, del) };
  if (name in CORRECTIONS) {
    if (row.want === CORRECTIONS[name]) throw new Error("no longer differs: " + name);
    row.node20_differs = true;
    row.node20 = row.want;
    row.want = CORRECTIONS[name];
  }
  out.rows.push(row);
}
for (const name of Object.keys(CORRECTIONS)) {
  if (!rows.some((r) => r[0] === name)) throw new Error("unknown correction: " + name);
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
