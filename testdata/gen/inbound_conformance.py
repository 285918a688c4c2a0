#!/usr/bin/env python3
"""Writes testdata/inbound-conformance.json: every row of the two example
tables of 网页入站接口规范 0.8.0 (一致性样例（0.8.0 新增）, 跨宿主一致性), each
with its 情境 and 必须观察到 text verbatim, and the cases that check it.

The expectations are written by hand below from the spec's sentences; the
script only copies the row texts from the spec (so they stay verbatim) and
serialises. Run from the repository root:

    python3 testdata/gen/inbound_conformance.py /path/to/specs/inbound-0.8.0.md
"""
import json
import sys

SPEC = sys.argv[1]

JSON_FN = "读取入站有限癸象正文文"
OLD_JSON = "读取入站癸象正文文"
TEXT = "读取入站有限正文文字"
STRICT = "读取入站有限正文严格文字"
BYTES = "读取入站有限正文字节"
EXISTS = "入站标头存在"


def call(fn, expect, limit=None, name=None, after=None, canon=False):
    c = {"function": fn}
    if limit is not None:
        c["limit"] = limit
    if name is not None:
        c["name"] = name
    c["expect"] = expect
    if after is not None:
        c["body_after"] = after
    if canon:
        c["needs_canonical"] = True
    return c


def case(calls, method="POST", headers=None, body=None, note=None):
    c = {}
    if note:
        c["note"] = note
    c["request"] = {
        "kind": "fetch",
        "method": method,
        "url": "https://example.com/api",
        "headers": headers or [],
        "body": body,
    }
    c["calls"] = calls
    return c


def text(*chunks):
    return {"chunks": list(chunks)}


def hexb(*chunks):
    return {"chunks": [{"hex": c} for c in chunks]}


def ok(t):
    return {"status": 0, "text": t}


def okhex(h):
    return {"status": 0, "bytes": {"hex": h}}


def st(n, result_text=""):
    return {"status": n, "text": result_text}


def stbytes(n):
    return {"status": n, "bytes": None}


def syntax5():
    return {"status": 5, "reason_prefix": "SyntaxError: "}


def throws(kind, message=None, prefix=None, contains=None):
    t = {"kind": kind}
    if message is not None:
        t["message"] = message
    if prefix is not None:
        t["message_prefix"] = prefix
    if contains is not None:
        t["message_contains"] = contains
    return {"error": t}


def after(pulls, canceled, used):
    return {"pulls": pulls, "canceled": canceled, "used": used}


MSG_BODY_LIMIT = "入站正文字节上限须在 1 至 16777216"
MSG_JSON_LIMIT = "入站 JSON 正文字节上限须在 1 至 8388608"
MSG_JSON_INVALID = "入站 JSON 正文无效："

# 一致性样例（0.8.0 新增）: 读取入站有限癸象正文文 unless said otherwise.
table1 = [
    [case([call(JSON_FN, ok('{"a":1,"b":[2]}'), limit=1000, canon=True)],
          body=text('{ "a" : 1 , "b" : [ 2 ] }'))],
    [case([call(JSON_FN, ok('{"a":3,"b":2}'), limit=1000, canon=True)],
          body=text('{"a":1,"b":2,"a":3}'))],
    [case([call(JSON_FN, ok('{"1":3,"2":2,"b":1}'), limit=1000, canon=True)],
          body=text('{"b":1,"2":2,"1":3}'))],
    [case([call(JSON_FN, ok('{"a":"中/"}'), limit=1000, canon=True)],
          body=text('{"a":"\\u4e2d\\/"}'))],
    [case([call(JSON_FN, ok('{"a":1e+21}'), limit=1000, canon=True)],
          body=text('{"a":1e21}'))],
    [case([call(JSON_FN, syntax5(), limit=1000, canon=True)], body=text('{"a":"\\x"}')),
     case([call(JSON_FN, syntax5(), limit=1000, canon=True)], body=text('{bad')),
     case([call(JSON_FN, syntax5(), limit=1000, canon=True)], body=text(),
          note="an empty stream: zero chunks")],
    [case([call(JSON_FN, ok('{"a":1}'), limit=7, after=after(1, False, True), canon=True)],
          body=text('{"a":1}')),
     case([call(JSON_FN, st(1), limit=6, after=after(1, True, True))],
          body=text('{"a":1}'))],
    [case([call(JSON_FN, st(1), limit=7, after=after(0, False, False)),
           call(BYTES, okhex("7b2261223a31327d"), limit=8, after=after(1, False, True))],
          headers=[["Content-Length", "8"]], body=text('{"a":12}'),
          note="the second call shows the stream was left untouched")],
    [case([call(JSON_FN, st(2), limit=1000, after=after(0, False, False))],
          method="GET", body=text("{}"), note="a GET that has a body stream all the same"),
     case([call(JSON_FN, st(2), limit=1000, after=after(0, False, False))],
          method="HEAD", body=text("{}"), note="HEAD, like GET (status table: 方法为 GET 或 HEAD)")],
    [case([call(BYTES, okhex("7b7d"), limit=100),
           call(JSON_FN, st(3), limit=1000)], body=text("{}")),
     case([call(TEXT, ok("{}"), limit=100),
           call(JSON_FN, st(3), limit=1000)], body=text("{}")),
     case([call(STRICT, ok("{}"), limit=100),
           call(JSON_FN, st(3), limit=1000)], body=text("{}")),
     case([call(JSON_FN, st(1), limit=1, after=after(1, True, True)),
           call(JSON_FN, st(3), limit=1000)], body=text("{}"),
          note="a read that cancelled the stream used it"),
     case([call(OLD_JSON, {"text": "{}"}, canon=True),
           call(JSON_FN, st(3), limit=1000)], body=text("{}")),
     case([call(JSON_FN, ok("{}"), limit=1000, canon=True),
           call(JSON_FN, st(3), limit=1000)], body=text("{}"))],
    [case([call(JSON_FN, st(4), limit=1000, after=after(1, True, True))], body=hexb("ff"))],
    [case([call(JSON_FN, throws("violation", MSG_JSON_LIMIT), limit=0),
           call(JSON_FN, throws("violation", MSG_JSON_LIMIT), limit=8388609, after=after(0, False, False))],
          body=text("{}"))],
]

# 跨宿主一致性.
# The 8-byte body: 61 62 | e4 b8 ad is 中, cut across the first two chunks.
EIGHT = hexb("6162e4", "b8ad64", "6566")
table2 = [
    [case([call(BYTES, okhex("6162e4b8ad646566"), limit=8, after=after(3, False, True))], body=EIGHT),
     case([call(TEXT, ok("ab中def"), limit=8, after=after(3, False, True))], body=EIGHT),
     case([call(STRICT, ok("ab中def"), limit=8, after=after(3, False, True))], body=EIGHT)],
    [case([call(BYTES, stbytes(1), limit=7, after=after(3, True, True))], body=EIGHT),
     case([call(TEXT, st(1), limit=7, after=after(3, True, True))], body=EIGHT),
     case([call(STRICT, st(1), limit=7, after=after(3, True, True))], body=EIGHT),
     case([call(BYTES, stbytes(1), limit=5, after=after(2, True, True))], body=EIGHT,
          note="limit 5: the second chunk crosses it, the third is never pulled")],
    [case([call(BYTES, stbytes(1), limit=10, after=after(0, False, False))],
          headers=[["Content-Length", "11"]], body=text("hello world")),
     case([call(TEXT, st(1), limit=10, after=after(0, False, False))],
          headers=[["Content-Length", "11"]], body=text("hello world")),
     case([call(STRICT, st(1), limit=10, after=after(0, False, False))],
          headers=[["Content-Length", "11"]], body=text("hello world")),
     case([call(JSON_FN, st(1), limit=10, after=after(0, False, False))],
          headers=[["Content-Length", "11"]], body=text("hello world"))],
    [case([call(BYTES, stbytes(2), limit=100), call(TEXT, st(2), limit=100),
           call(STRICT, st(2), limit=100), call(JSON_FN, st(2), limit=100,
                                                 after=after(0, False, False))],
          method="GET", body=text("hello")),
     case([call(BYTES, stbytes(2), limit=100), call(TEXT, st(2), limit=100),
           call(STRICT, st(2), limit=100), call(JSON_FN, st(2), limit=100)],
          body=None, note="a POST for which the host provides no body stream"),
     case([call(BYTES, okhex(""), limit=100, after=after(0, False, True))], body=text(),
          note="real workerd: a POST without a body may carry an empty stream: (0, 空)"),
     case([call(TEXT, ok(""), limit=100)], body=text(),
          note="real workerd: a POST without a body may carry an empty stream: (0, 空)"),
     case([call(STRICT, ok(""), limit=100)], body=text(),
          note="real workerd: a POST without a body may carry an empty stream: (0, 空)")],
    [case([call(TEXT, ok("hello"), limit=100), call(TEXT, st(3), limit=100)], body=text("hello")),
     case([call(BYTES, okhex("68656c6c6f"), limit=100), call(BYTES, stbytes(3), limit=100)],
          body=text("hello")),
     case([call(STRICT, ok("hello"), limit=100), call(STRICT, st(3), limit=100)],
          body=text("hello")),
     case([call(BYTES, okhex("68656c6c6f"), limit=100), call(TEXT, st(3), limit=100),
           call(STRICT, st(3), limit=100)], body=text("hello")),
     case([call(BYTES, stbytes(3), limit=100, after=after(0, False, True))],
          body={"chunks": ["hello"], "used": True},
          note="the host (or another reader) read or locked the stream before")],
    [case([call(TEXT, ok("\ufffd"), limit=100)], body=hexb("ff")),
     case([call(STRICT, st(4), limit=100, after=after(1, True, True))], body=hexb("ff"))],
    [case([call(TEXT, ok("hi"), limit=100)], body=hexb("efbbbf6869")),
     case([call(STRICT, ok("hi"), limit=100)], body=hexb("efbbbf6869")),
     case([call(BYTES, okhex("efbbbf6869"), limit=100)], body=hexb("efbbbf6869"))],
    [case([call(f, throws("violation", MSG_BODY_LIMIT), limit=lim) for f in (TEXT, STRICT, BYTES)] +
          [call(BYTES, okhex("6869"), limit=2, after=after(1, False, True))],
          body=text("hi"), note="the last call shows the body was left untouched")
     for lim in (0, 16777217)],
    [case([call(BYTES, {"status": 0, "same_as_body": True}, limit=16777216,
                after=after(256, False, True))],
          body={"bytes": {"repeat": "a", "times": 16777216}, "chunk_size": 65536}),
     case([call(STRICT, {"status": 0, "same_as_body": True}, limit=16777216)],
          body={"bytes": {"repeat": "a", "times": 16777216}, "chunk_size": 65536}),
     case([call(BYTES, stbytes(1), limit=16777216, after=after(257, True, True))],
          body={"bytes": {"repeat": "a", "times": 16777217}, "chunk_size": 65536}),
     case([call(TEXT, st(1), limit=16777216, after=after(257, True, True))],
          body={"bytes": {"repeat": "a", "times": 16777217}, "chunk_size": 65536})],
    [case([call(EXISTS, {"value": True}, name="x-empty"),
           call(EXISTS, {"value": False}, name="x-missing")],
          method="GET", headers=[["X-Empty", ""]], body=None)],
    [case([call(OLD_JSON, throws("failure", prefix=MSG_JSON_INVALID, contains="SyntaxError"),
                canon=True)], body=text("{bad"))],
]


def rows(spec, heading):
    lines = spec.splitlines()
    i = next(n for n, l in enumerate(lines) if l.startswith(heading))
    out = []
    for l in lines[i + 1:]:
        if l.startswith("| 情境") or l.startswith("| ---"):
            continue
        if not l.startswith("| "):
            if out:
                break
            continue
        cells = l[2:-2].split(" | ")
        assert len(cells) == 2, l
        out.append(cells)
    return out


spec = open(SPEC, encoding="utf-8").read()
tables = []
for heading, cases in (("一致性样例（0.8.0 新增）", table1), ("跨宿主一致性", table2)):
    rs = rows(spec, heading)
    assert len(rs) == len(cases), (heading, len(rs), len(cases))
    tables.append({
        "table": heading,
        "rows": [{"情境": r[0], "必须观察到": r[1], "cases": c} for r, c in zip(rs, cases)],
    })

doc = {
    "source": "网页入站接口规范 0.8.0 (specs/inbound-0.8.0.md): every row of the tables "
              "一致性样例（0.8.0 新增） and 跨宿主一致性, 情境 and 必须观察到 verbatim; "
              "cases written by hand (hostbridge testdata/gen/inbound_conformance.py)",
    "format": "see testdata/README.md, section 网页入站 body rows",
    "tables": tables,
}
with open("testdata/inbound-conformance.json", "w", encoding="utf-8") as f:
    json.dump(doc, f, ensure_ascii=False, indent=1)
    f.write("\n")
