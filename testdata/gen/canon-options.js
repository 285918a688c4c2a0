// canon-options.js writes testdata/canon-options.json: hand-written rows on
// the options of canonical (canon.go) — reserved host-marker keys, ±Infinity,
// the nesting report (deepOver) and the parser bound (maxDepth), the depth of
// the parsed value and the offset of the problem reported.
//
//   node testdata/gen/canon-options.js > testdata/canon-options.json
//
// The expected problem kind and its offset are written by hand: '§' in a
// text marks the byte offset of the problem (it is removed from the text).
// Node then fills in what JavaScript decides — the canonical text
// (JSON.stringify(JSON.parse(text)), ±Infinity written null) and the depth
// of the parsed value — and checks each hand-written expectation against the
// parsed value: the kind must be present in it (a value replaced by a later
// duplicate key is gone), "none" means no kind is present, and an "error"
// row must be rejected by JSON.parse (unless it is the maxDepth bound,
// which JSON.parse does not have).
//
// Row fields (language-neutral):
//   情境      what the row is about
//   text      the JSON text, or a byte builder (testdata/README.md):
//             {"hex": …} for invalid UTF-8, {"repeat": B, "times": n} and
//             {"concat": [B, …]} for deep nesting
//   options   {maxDepth, deepOver, markers, infToNull} (0 / false: off)
//   error     true: canonical must fail with a syntax error
//   reason    when given, the syntax error's reason text
//   error_off when given, the syntax error's byte offset
//   canonical the expected output (only rows without a problem)
//   depth     the parsed value's depth (rows without an error)
//   problem   "none", "deep", "marker" or "inf": the first in text order
//   off       when given, the problem's byte offset in text
'use strict';

const DEF = { maxDepth: 0, deepOver: 0, markers: false, infToNull: true };
const M = { markers: true };
const INF = { infToNull: false };
const ALL = { maxDepth: 1000, deepOver: 24, markers: true, infToNull: false };

const rows = [
  // ---- markers -----------------------------------------------------------
  ['marker $句柄', '{§"$句柄":1}', M, 'marker'],
  ['marker $未定义', '{§"$未定义":null}', M, 'marker'],
  ['marker $大整数', '{§"$大整数":"12345678901234567890"}', M, 'marker'],
  ['marker $数字', '{§"$数字":"NaN"}', M, 'marker'],
  ['marker spelt \\u0024句柄 is caught after unescaping', '{§"\\u0024句柄":1}', M, 'marker'],
  ['marker spelt all in escapes', '{§"\\u0024\\u53e5\\u67c4":1}', M, 'marker'],
  ['marker spelt with upper-case escapes', '{§"\\u0024\\u6570\\u5B57":1}', M, 'marker'],
  ['marker with other keys before it', '{"a":1,"b":[],§"$数字":2}', M, 'marker'],
  ['marker among index keys (reported in text order, not output order)', '{"b":1,§"$句柄":1,"0":2}', M, 'marker'],
  ['markers off: $句柄 passes', '{"$句柄":1}', {}, 'none'],
  ['$set passes', '{"$set":1}', M, 'none'],
  ['$ alone passes', '{"$":1}', M, 'none'],
  ['$句 (prefix) passes', '{"$句":1}', M, 'none'],
  ['$句柄x (longer) passes', '{"$句柄x":1}', M, 'none'],
  ['句柄 without $ passes', '{"句柄":1}', M, 'none'],
  ['full-width ＄句柄 passes', '{"＄句柄":1}', M, 'none'],
  ['space before marker passes', '{" $句柄":1}', M, 'none'],
  ['marker spelt \\u0024 followed by other text passes', '{"\\u0024句柄\\u0000":1}', M, 'none'],
  ['marker as a string value passes', '["$句柄",{"a":"$数字"}]', M, 'none'],
  ['marker at depth 3', '{"a":{"b":[{"c":1,§"$数字":2}]}}', M, 'marker'],
  ['marker at depth 24', '[[[[[[[[[[[[[[[[[[[[[[[{§"$未定义":1}]]]]]]]]]]]]]]]]]]]]]]]', M, 'marker'],
  ['marker in the second object of an array', '[{"a":1},{"b":2,§"$句柄":1}]', M, 'marker'],
  ['marker in an array of objects, first one', '[{§"$大整数":"1"},{"$句柄":1}]', M, 'marker'],
  ['marker replaced by a later duplicate key is not reported', '{"a":{"$句柄":1},"a":2}', M, 'none'],
  ['nested marker replaced by a later duplicate is not reported', '{"x":[{"y":{"$未定义":1}}],"x":[]}', M, 'none'],
  ['marker replaced, a later surviving marker is reported', '{"a":{"$句柄":1},"b":{§"$数字":1},"a":2}', M, 'marker'],
  ['marker replaced by a value that has a marker too', '{"a":{"$句柄":1},"a":{§"$句柄":2}}', M, 'marker'],
  ['marker key repeated: reported at its first occurrence', '{§"$句柄":1,"$句柄":2}', M, 'marker'],
  ['marker key repeated inside an array', '[{"x":0,§"$数字":1,"$数字":2}]', M, 'marker'],
  ['marker key repeated, both spellings', '{§"$句柄":1,"\\u0024句柄":2}', M, 'marker'],
  ['later duplicate replaces the object holding a marker by a string', '[{"k":{"$大整数":"9"},"k":"$大整数"}]', M, 'none'],
  ['duplicate in an earlier value does not hide a later marker', '[{"a":1,"a":2},{§"$句柄":0}]', M, 'marker'],

  // ---- ±Infinity -------------------------------------------------------------
  ['1e999 becomes null with infToNull', '1e999', {}, 'none'],
  ['-1e999 becomes null with infToNull', '[-1e999]', {}, 'none'],
  ['1e999 is problemInf without infToNull', '§1e999', INF, 'inf'],
  ['-1e400 in an array is problemInf', '[0,§-1e400]', INF, 'inf'],
  ['overflow spelt with a long mantissa', '{"n":§123456789e400}', INF, 'inf'],
  ['1.7976931348623157e308 is finite', '[1.7976931348623157e308]', INF, 'none'],
  ['1.7976931348623158e308 rounds to the largest finite', '[1.7976931348623158e308]', INF, 'none'],
  ['1.7976931348623159e308 rounds to Infinity', '[§1.7976931348623159e308]', INF, 'inf'],
  ['1e-400 underflows to 0, which is fine', '[1e-400,-1e-400]', INF, 'none'],
  ['±Infinity replaced by a later duplicate is not reported', '{"a":1e999,"a":1}', INF, 'none'],
  ['±Infinity inside a replaced array is not reported', '{"a":[1,1e999],"a":1}', INF, 'none'],
  ['±Infinity replaced after other keys', '{"a":1,"b":-1e999,"c":2,"b":0}', INF, 'none'],
  ['the second ±Infinity survives', '{"a":1e999,"b":§1e999,"a":0}', INF, 'inf'],
  ['±Infinity replaced by another ±Infinity', '{"a":1e999,"a":§-1e999}', INF, 'inf'],
  ['±Infinity replaced, written null with infToNull', '{"a":1e999,"a":2e999,"b":1}', {}, 'none'],
  ['1e999 as a key is a string', '{"1e999":1}', INF, 'none'],

  // ---- order between kinds -------------------------------------------------
  ['marker key comes before its ±Infinity value', '[{§"$句柄":1e999}]', { markers: true, infToNull: false }, 'marker'],
  ['±Infinity comes before a later marker', '[§1e999,{"$句柄":1}]', { markers: true, infToNull: false }, 'inf'],
  ['infToNull hides ±Infinity, marker reported', '[1e999,{§"$句柄":1}]', { markers: true, infToNull: true }, 'marker'],
  ['too deep comes before a marker inside', '[§[{"$句柄":1}]]', { deepOver: 1, markers: true }, 'deep'],
  ['marker comes before a too-deep value under it', '[{§"$句柄":[[1]]}]', { deepOver: 2, markers: true }, 'marker'],
  ['±Infinity before a too-deep sibling', '[§1e999,[[1]]]', { deepOver: 2, infToNull: false }, 'inf'],
  ['too deep before a later ±Infinity', '[[§[1]],1e999]', { deepOver: 2, infToNull: false }, 'deep'],
  ['text order, not output order: ±Infinity before an index key sorted ahead', '{"b":§1e999,"0":[[1]]}', { deepOver: 1, infToNull: false }, 'inf'],
  ['text order, not output order: too deep before an index key sorted ahead', '{"b":§[[1]],"0":1e999}', { deepOver: 1, infToNull: false }, 'deep'],
  ['text order, not output order: marker before an index key sorted ahead', '{§"$数字":1,"7":[1e999]}', { markers: true, infToNull: false }, 'marker'],
  ['all options, nothing wrong', '{"a":[1,{"b":"$句柄"}],"$set":1e308}', ALL, 'none'],

  // ---- deepOver ----------------------------------------------------------
  ['deepOver 1: [] is fine', '[]', { deepOver: 1 }, 'none'],
  ['deepOver 1: [[]] is too deep', '[§[]]', { deepOver: 1 }, 'deep'],
  ['deepOver 2: a scalar under depth 2 is fine', '{"a":[1,"x",null]}', { deepOver: 2 }, 'none'],
  ['deepOver: the first too-deep container in text order', '[[1],[[§[]]],[[[[]]]]]', { deepOver: 3 }, 'deep'],
  ['deepOver: too-deep value replaced by a duplicate', '{"a":[[[1]]],"a":[1]}', { deepOver: 2 }, 'none'],
  ['deepOver: too-deep replacement is reported', '{"a":1,"a":§[[1]]}', { deepOver: 1 }, 'deep'],

  // ---- depth of the parsed value ----------------------------------------------
  ['depth of a number is 0', '1', {}, 'none'],
  ['depth of a string is 0', '"x"', {}, 'none'],
  ['depth of null is 0', ' null ', {}, 'none'],
  ['depth of [] is 1', '[]', {}, 'none'],
  ['depth of {} is 1', '{}', {}, 'none'],
  ['depth of {"a":[1]} is 2', '{"a":[1]}', {}, 'none'],
  ['depth of [[],[[]]] is 3', '[[],[[]]]', {}, 'none'],
  ['depth of [{"a":{}}] is 3', '[{"a":{}}]', {}, 'none'],
  ['depth counts the parsed value: a replaced deep value is gone', '{"a":[[1]],"a":2}', {}, 'none'],
  ['depth counts the parsed value: the replacement is deeper', '{"a":2,"a":[[1]]}', {}, 'none'],
  ['depth with whitespace everywhere', ' \t\n\r[ \t\n\r{ "a" : [ ] } ]\r\n', {}, 'none'],

  // ---- syntax errors, with options -------------------------------------------
  ['empty text', '', {}, 'error', { reason: 'Unexpected end of input', errorOff: 0 }],
  ['whitespace only', ' \n', {}, 'error', { reason: 'Unexpected end of input', errorOff: 2 }],
  ['unclosed array', '[1,', {}, 'error', { reason: 'Unexpected end of input', errorOff: 3 }],
  ['unclosed string', '"abc', {}, 'error'],
  ['a BOM is not whitespace', '\ufeff{}', {}, 'error'],
  ['U+2028 is not whitespace', '\u2028{}', {}, 'error'],
  ['U+00A0 is not whitespace', '[1,\u00a02]', {}, 'error'],
  ['a lone surrogate escape in a key is fine', '{"\\udc00":1}', M, 'none'],
  ['syntax error after a marker', '{"$句柄":1,}', M, 'error'],
  ['syntax error after ±Infinity', '[1e999', INF, 'error'],
  ['syntax error after a too-deep value', '[[[1]]],', { deepOver: 1 }, 'error'],
  ['trailing garbage', '{} x', {}, 'error', { reason: 'Unexpected non-whitespace character after the value', errorOff: 3 }],
  ['two values', '1 2', {}, 'error', { reason: 'Unexpected non-whitespace character after the value', errorOff: 2 }],
  // Escapes: V8's own position is checked (v8: true), the reason is ours.
  ['bad escape: at the character after the backslash', '"\\q"', {}, 'error', { reason: 'Bad escaped character', errorOff: 2, v8: true }],
  ['bad escape in an array', '["ab\\x"]', {}, 'error', { reason: 'Bad escaped character', errorOff: 5, v8: true }],
  ['bad escape in a key', '{"\\a":1}', {}, 'error', { reason: 'Bad escaped character', errorOff: 3, v8: true }],
  ['bad \\u escape: at its first non-hex digit', '"\\u12x4"', {}, 'error', { reason: 'Bad Unicode escape', errorOff: 5, v8: true }],
  ['bad \\u escape: the closing quote is not a hex digit', '"\\u12"', {}, 'error', { reason: 'Bad Unicode escape', errorOff: 5, v8: true }],
  ['bad \\u escape: no digit', '"\\uZZZZ"', {}, 'error', { reason: 'Bad Unicode escape', errorOff: 3, v8: true }],
  ['bad \\u escape cut off by the end: at the end', '"\\u004', {}, 'error', { reason: 'Bad Unicode escape', errorOff: 6, v8: true }],
  ['a bad low half after a good high one', '"\\ud83d\\udeXX"', {}, 'error', { reason: 'Bad Unicode escape', errorOff: 11, v8: true }],
  // Numbers (RFC 8259 §6): where a digit must be and is not, V8's position
  // (v8: true) is the byte that is not a digit, or the end of the text. V8
  // words these reasons its own way (canon_test.go pins ours).
  ['number: nothing after the minus sign', '-', {}, 'error', { errorOff: 1, v8: true }],
  ['number: a letter after the minus sign', '-x', {}, 'error', { errorOff: 1, v8: true }],
  ['number: a space after the minus sign', '- 1', {}, 'error', { errorOff: 1, v8: true }],
  ['number: a point after the minus sign', '-.5', {}, 'error', { errorOff: 1, v8: true }],
  ['number: the minus sign alone in an array', '[-]', {}, 'error', { errorOff: 2, v8: true }],
  ['number: a letter after the minus sign in an array', '[0,-a]', {}, 'error', { errorOff: 4, v8: true }],
  ['number: nothing after the point', '1.', {}, 'error', { errorOff: 2, v8: true }],
  ['number: nothing after the point of a negative number', '-12.', {}, 'error', { errorOff: 4, v8: true }],
  ['number: a letter after the point', '1.x', {}, 'error', { errorOff: 2, v8: true }],
  ['number: a bracket after the point', '[-1.]', {}, 'error', { errorOff: 4, v8: true }],
  ['number: an exponent after the point', '[0,10.e5]', {}, 'error', { errorOff: 6, v8: true }],
  ['number: a comma after the point (a byte below \'0\')', '[1.,2]', {}, 'error', { errorOff: 3, v8: true }],
  ['number: a space after the point', '1. ', {}, 'error', { errorOff: 2, v8: true }],
  ['number: nothing after the e', '1e', {}, 'error', { errorOff: 2, v8: true }],
  ['number: nothing after the E of a fraction', '-0.5E', {}, 'error', { errorOff: 5, v8: true }],
  ['number: nothing after the exponent\'s sign', '1e+', {}, 'error', { errorOff: 3, v8: true }],
  ['number: nothing after the exponent\'s minus', '25E-', {}, 'error', { errorOff: 4, v8: true }],
  ['number: a letter after the e', '1ex', {}, 'error', { errorOff: 2, v8: true }],
  ['number: a comma after the e', '[1e,2]', {}, 'error', { errorOff: 3, v8: true }],
  ['number: a space after the exponent\'s sign', '-2.5E+ ', {}, 'error', { errorOff: 6, v8: true }],
  ['number: a bracket after the exponent\'s sign', '[1E-]', {}, 'error', { errorOff: 4, v8: true }],
  ['number: a letter after the exponent\'s sign', '-1.5e+x', {}, 'error', { errorOff: 6, v8: true }],
  ['number: a second sign in the exponent', '[0,1e+-1]', {}, 'error', { errorOff: 6, v8: true }],
  ['number: a digit after a leading zero', '01', {}, 'error', { errorOff: 1, v8: true }],
  ['number: a digit after a negative leading zero', '-01', {}, 'error', { errorOff: 2, v8: true }],
  ['number: a digit after a leading zero in an array', '[-01]', {}, 'error', { errorOff: 3, v8: true }],
  // Numbers that end the text (the rows further on wrap theirs in an array).
  ['number: 0.0 ending the text is 0', '0.0', {}, 'none'],
  ['number: -0.000 ending the text is 0', '-0.000', {}, 'none'],
  ['number: 7 ending the text', '7', {}, 'none'],
  ['number: -12.5 ending the text', '-12.5', {}, 'none'],
  ['number: 0.001e5 is 100 (zeros after the point, then an exponent)', '0.001e5', {}, 'none'],
  ['number: 0.0001e7 is 1000', '[0.0001e7]', {}, 'none'],
  ['number: -0 ending the text is 0', '-0', {}, 'none'],
  ['number: -0 in an array is 0', '[-0,0,-0]', {}, 'none'],
  // Number::toString's layouts at their bounds (21 digits before the point,
  // 6 zeros after it), from spellings it does not write.
  ['number: layouts at their bounds, respelt', '[1e20,1e21,12e19,123e19,1.5e20,15e-7,1e-6,1e-7,1.5e-6,123e-2,12e-2,5e-1,1e0,7E+2,-25e-1]', {}, 'none'],
  // A number of over 700 digits is spelt again for strconv (canon_fast_number.go's
  // pointFirst, in a buffer of its own): the text after it, and a second
  // such number, read on unchanged.
  ['number: a long number, then a string, an object with an index key, and a long number', '[1' + '0'.repeat(800) + 'e-800,"abc",{"b":1,"1":[true]},' + '12345678'.repeat(120) + 'e-950,null]', {}, 'none'],
];

// Numbers whose double needs the whole mantissa: halfway cases decided by
// a digit far out, and long zeros around the point.
const HALF = '1.00000000000000011102230246251565404236316680908203125'; // 1 + 2^-53
const MIN_HALF = '2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324'; // 2^-1075
for (const [name, num, expect, extra] of [
  ['number: 1 + 2^-53 exactly rounds to even (1)', HALF, 'none'],
  ['number: 1 + 2^-53 and a 1 after 900 zeros rounds up', HALF + '0'.repeat(900) + '1', 'none'],
  ['number: 1 + 2^-53 and 900 zeros rounds to even', HALF + '0'.repeat(900), 'none'],
  ['number: 2^-1075 exactly rounds to even (0)', MIN_HALF, 'none'],
  ['number: 2.4703282292062328e-324 rounds up to 5e-324', '2.4703282292062328e-324', 'none'],
  ['number: 1000 zeros after the point, then 1e1001', '0.' + '0'.repeat(1000) + '1e1001', 'none'],
  ['number: 1 and 1000 zeros, e-1000', '1' + '0'.repeat(1000) + 'e-1000', 'none'],
  // strconv.ParseFloat keeps 800 digits and loses the point's place after
  // them, and holds exponents at 10000: these it misreads when given as is.
  ['number: 1 and 800 zeros, e-800', '1' + '0'.repeat(800) + 'e-800', 'none'],
  ['number: 17 digits and 800 zeros, e-800', '12345678901234567' + '0'.repeat(800) + 'e-800', 'none'],
  ['number: 850 digits, a point, e-840', '7'.repeat(850) + '.5e-840', 'none'],
  ['number: 20000 zeros after the point, then 1e20005', '0.' + '0'.repeat(20000) + '1e20005', 'none'],
  ['number: 20000 zeros after the point, then 1.5e20001', '-0.' + '0'.repeat(20000) + '15e20001', 'none'],
  ['number: 20000 zeros after the point, then 23 digits e20005', '0.' + '0'.repeat(20000) + '12345678901234567890123e20005', 'none'],
  ['number: 1e-20000 with 20000 digits before the point', '3'.repeat(20000) + 'e-20000', 'none'],
  ['number: 400 digits is ±Infinity', '9'.repeat(400), 'inf', { off: 1 }],
  ['number: 0e999999999999 is 0', '0e999999999999', 'none'],
  ['number: -0.0e-5 is 0', '-0.0e-5', 'none'],
  ['number: 1e-99999999999 is 0', '1e-99999999999', 'none'],
  ['number: 1e99999999999 is ±Infinity', '1e99999999999', 'inf', { off: 1 }],
  ['number: 123456789012345678 (beyond 2^53)', '123456789012345678', 'none'],
  ['number: 0.1e1 is 1', '0.1e1', 'none'],
  ['number: 100e-2 is 1', '100e-2', 'none'],
  ['number: 1.50 drops the zero', '1.50', 'none'],
  ['number: 123456789012345.6 (16 digits)', '123456789012345.6', 'none'],
  ['number: 9007199254740993 (16 digits, not its double\'s shortest: 2^53)', '9007199254740993', 'none'],
  ['number: 20 significant digits, more than 64 bits hold (2^64 + 10^15 + 1, over 10^19)', '1.8447744073709551617', 'none'],
  ['number: 0.000001 stays, 0.0000001 is 1e-7', '[0.000001,0.0000001,-0.00000123]', 'none'],
]) {
  rows.push([name, num.startsWith('[') ? num : '[' + num + ']', INF, expect, extra]);
}

// Objects past the point where canonical switches to a key index (16 keys).
function bigObject(n, extra) {
  const m = [];
  for (let i = 0; i < n; i++) m.push('"k' + i + '":' + i);
  return '{' + m.join(',') + extra + '}';
}
rows.push(['40 keys with late duplicates and index keys', bigObject(40, ',"k3":"x","30":1,"k39":[],"2":2,"k0":{},"\\u006b7":7,"30":3'), M, 'none']);
rows.push(['40 keys, a marker value replaced after key 16', bigObject(20, ',"k5":{"$句柄":1},"k21":0,"k5":5'), M, 'none']);
rows.push(['40 keys, a marker key after key 16', bigObject(20, ',§"\\u0024数字":1,"k21":0'), M, 'marker']);
rows.push(['40 keys, a marker key repeated after key 16', bigObject(20, ',§"$数字":1,"k21":0,"$数字":2'), M, 'marker']);
rows.push(['40 keys, ±Infinity replaced after key 16', bigObject(30, ',"k1":1e999,"k1":1'), INF, 'none']);
// Key indexes are per nesting level and reused: siblings must not see each
// other's keys, nor an object the keys of the one it is inside.
rows.push(['two 20-key objects side by side, only the second with duplicates',
  '[' + bigObject(20, ',"x":1') + ',' + bigObject(20, ',"k19":"a","y":2,"x":3,"k0":"b"') + ',' + bigObject(18, '') + ']', M, 'none']);
rows.push(['a 20-key object in a 20-key object, the same keys at both levels',
  bigObject(20, ',"in":' + bigObject(20, ',"k2":"inner","in":0') + ',"k2":"outer","k21":1'), M, 'none']);

// Rows whose text is built from a repeated piece.
const nestRows = [
  ['deepOver 24: 24 arrays are fine', { open: '[', n: 24, inner: '1', close: ']' }, { deepOver: 24 }, 'none'],
  ['deepOver 24: 25 arrays are too deep', { open: '[', n: 25, inner: '', close: ']' }, { deepOver: 24 }, 'deep', { off: 24 }],
  ['deepOver 24: 24 objects are fine', { open: '{"a":', n: 23, inner: '{}', close: '}' }, { deepOver: 24 }, 'none'],
  ['deepOver 24: 25 objects are too deep', { open: '{"a":', n: 25, inner: 'null', close: '}' }, { deepOver: 24 }, 'deep', { off: 5 * 24 }],
  ['deepOver 24: mixed, 25 deep', { open: '[{"k":', n: 12, inner: '[0]', close: '}]' }, { deepOver: 24 }, 'deep', { off: 6 * 12 }],
  ['deepOver 24 with markers: marker in a 25-deep value, deep is first', { open: '[', n: 24, inner: '{"$句柄":1}', close: ']' }, { deepOver: 24, markers: true }, 'deep', { off: 24 }],
  ['maxDepth 1000: 1000 arrays are fine', { open: '[', n: 1000, inner: '', close: ']' }, { maxDepth: 1000 }, 'none'],
  ['maxDepth 1000: 1001 arrays are a syntax error', { open: '[', n: 1001, inner: '', close: ']' }, { maxDepth: 1000 }, 'error', { reason: 'Nesting deeper than 1000 levels', errorOff: 1000 }],
  ['maxDepth 1000: 1000 objects are fine', { open: '{"a":', n: 1000, inner: '0', close: '}' }, { maxDepth: 1000 }, 'none'],
  ['maxDepth 1000: 1001 objects are a syntax error', { open: '{"a":', n: 1001, inner: '0', close: '}' }, { maxDepth: 1000 }, 'error', { reason: 'Nesting deeper than 1000 levels', errorOff: 5000 }],
  ['maxDepth 1000: 1001 unclosed arrays are a syntax error (too deep)', { open: '[', n: 1001, inner: '', close: '' }, { maxDepth: 1000 }, 'error', { reason: 'Nesting deeper than 1000 levels', errorOff: 1000 }],
  ['maxDepth 1000: 1000 unclosed arrays end early', { open: '[', n: 1000, inner: '', close: '' }, { maxDepth: 1000 }, 'error', { reason: 'Unexpected end of input', errorOff: 1000 }],
  ['maxDepth 1000 with deepOver 24: 1000 deep is reported deep at 25', { open: '[', n: 1000, inner: '', close: ']' }, { maxDepth: 1000, deepOver: 24 }, 'deep', { off: 24 }],
  ['maxDepth 1: [] is fine', { open: '[', n: 1, inner: '', close: ']' }, { maxDepth: 1 }, 'none'],
  ['maxDepth 1: [[]] is a syntax error', { open: '[', n: 2, inner: '', close: ']' }, { maxDepth: 1 }, 'error', { errorOff: 1 }],
  ['maxDepth 0 is unbounded: 4000 arrays', { open: '[', n: 4000, inner: '1', close: ']' }, {}, 'none'],
  ['deepOver 0 is off: 4000 arrays', { open: '[', n: 4000, inner: '', close: ']' }, { deepOver: 0, markers: true, infToNull: false }, 'none'],
];

// The parser bound counts everything it reads, a replaced value too. The
// object is level 1, so the 1000th '[' opens level 1001.
const big = { concat: ['{"a":', { repeat: '[', times: 1001 }, { repeat: ']', times: 1001 }, ',"a":1}'] };
rows.push(['maxDepth 1000: a replaced 1001-deep value is still a syntax error', big, { maxDepth: 1000 }, 'error', { reason: 'Nesting deeper than 1000 levels', errorOff: 5 + 999, bound: true }]);
const deep25 = '['.repeat(25) + ']'.repeat(25);
rows.push(['deepOver 24: a replaced 25-deep value is not reported', '{"a":' + deep25 + ',"a":1}', { deepOver: 24 }, 'none']);

// Invalid UTF-8: canonical takes bytes, and JSON.parse takes text, so these
// never reach JSON.parse; they are syntax errors.
const hexRows = [
  ['invalid UTF-8: a lone continuation byte in a string', '5b2280225d', {}, { errorOff: 2 }],
  ['invalid UTF-8: C0 80 (overlong NUL) in a string', '5b22c080225d', {}, { errorOff: 2 }],
  ['invalid UTF-8: an encoded surrogate ED A0 80', '5b22eda080225d', {}, { errorOff: 2 }],
  ['invalid UTF-8: truncated 3-byte sequence at the end of a string', '22e4b8', {}, {}],
  ['invalid UTF-8: F5 (above U+10FFFF)', '5b22f5808080225d', {}, { errorOff: 2 }],
  ['invalid UTF-8: FF outside a string', '5bff5d', {}, {}],
  ['invalid UTF-8 in a key, with markers', '7b2224e58f' + 'e5' + '223a317d', M, {}],
  ['a BOM (EF BB BF) is not stripped', 'efbbbf7b7d', {}, {}],
  ['invalid UTF-8 inside a value a duplicate replaces is still an error', '7b2261223a2280222c2261223a317d', {}, { errorOff: 6 }],
];

// ---- build ---------------------------------------------------------------
function expand(b) {
  if (typeof b === 'string') return b;
  if (b.hex !== undefined) return Buffer.from(b.hex, 'hex').toString('latin1'); // not used for text rows
  if (b.repeat !== undefined) return expand(b.repeat).repeat(b.times);
  return b.concat.map(expand).join('');
}
const MARKERS = new Set(['$句柄', '$未定义', '$大整数', '$数字']);
function depthOf(v) {
  if (v === null || typeof v !== 'object') return 0;
  let d = 0;
  for (const k of Object.keys(v)) d = Math.max(d, depthOf(v[k]));
  return d + 1;
}
function kinds(v, o, depth, set) {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) && !o.infToNull) set.add('inf');
    return;
  }
  if (v === null || typeof v !== 'object') return;
  if (o.deepOver > 0 && depth + 1 > o.deepOver) set.add('deep');
  for (const k of Object.keys(v)) {
    if (o.markers && !Array.isArray(v) && MARKERS.has(k)) set.add('marker');
    kinds(v[k], o, depth + 1, set);
  }
}
function fail(name, msg) {
  throw new Error(name + ': ' + msg);
}

const out = [];
function add(name, text, opts, expect, extra, shape) {
  extra = extra || {};
  const o = Object.assign({}, DEF, opts);
  let off = extra.off;
  let builder;
  if (shape) {
    builder = { concat: [{ repeat: shape.open, times: shape.n }, shape.inner, { repeat: shape.close, times: shape.n }] };
    text = expand(builder);
  } else if (typeof text === 'object') {
    builder = text;
    text = expand(builder);
  } else {
    const i = text.indexOf('§');
    if (i >= 0) {
      off = Buffer.byteLength(text.slice(0, i));
      text = text.slice(0, i) + text.slice(i + 1);
    }
  }
  const row = { 情境: name, text: builder || text };
  row.options = o;
  if (expect === 'error') {
    row.error = true;
    if (extra.reason) row.reason = extra.reason;
    if (extra.errorOff !== undefined) row.error_off = extra.errorOff;
    const bound = extra.reason === 'Nesting deeper than 1000 levels' || extra.bound || (o.maxDepth > 0 && !!shape);
    let parsed = true;
    try {
      JSON.parse(text);
    } catch {
      parsed = false;
    }
    if (parsed && !bound) fail(name, 'JSON.parse accepts an error row');
    if (extra.v8) {
      // The text is ASCII: V8's position (UTF-16 units) is the byte offset.
      let pos = -1;
      try {
        JSON.parse(text);
      } catch (e) {
        const m = / at position (\d+)/.exec(e.message);
        if (m) pos = Number(m[1]);
      }
      if (pos !== extra.errorOff) fail(name, 'V8 reports position ' + pos + ', the row says ' + extra.errorOff);
    }
    if (!parsed && bound && shape && shape.close !== '') fail(name, 'JSON.parse rejects a bound row');
    out.push(row);
    return;
  }
  const v = JSON.parse(text);
  const set = new Set();
  kinds(v, o, 0, set);
  if (expect === 'none') {
    if (set.size) fail(name, 'expected no problem, the value has ' + [...set]);
  } else if (!set.has(expect)) {
    fail(name, 'expected ' + expect + ', the value has ' + [...set]);
  }
  if (expect !== 'none' && off === undefined && !extra.noOff) fail(name, 'no § offset');
  if (expect === 'none') {
    row.canonical = JSON.stringify(v);
    // A large canonical text that is the input itself is written as its builder.
    if (shape && row.canonical === text) row.canonical = builder;
  }
  row.depth = depthOf(v);
  row.problem = expect;
  if (off !== undefined) row.off = off;
  out.push(row);
}

for (const [name, text, opts, expect, extra] of rows) add(name, text, opts, expect, extra);
for (const [name, shape, opts, expect, extra] of nestRows) add(name, undefined, opts, expect, extra, shape);
for (const [name, hex, opts, extra] of hexRows) {
  const bytes = Buffer.from(hex, 'hex');
  let decoded = true;
  try {
    const t = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    JSON.parse(t);
  } catch {
    decoded = false;
  }
  if (decoded) fail(name, 'bytes decode and parse');
  const row = { 情境: name, text: { hex: hex }, options: Object.assign({}, DEF, opts), error: true };
  if (extra.errorOff !== undefined) row.error_off = extra.errorOff;
  out.push(row);
}

process.stdout.write(
  '{"table":"canonical JSON: canonOptions (ours, hand-written)","source":"testdata/gen/canon-options.js, node ' +
    process.version + '","rows":[\n' + out.map((r) => JSON.stringify(r)).join(',\n') + '\n]}\n'
);
