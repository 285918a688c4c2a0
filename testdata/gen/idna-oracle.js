// Writes, for every code point Node.js knows as assigned (private use and
// surrogates excluded), two hosts and whether Node.js's new URL accepts
// them: "xn--" + Punycode of "a"+cp, and of cp alone. TestIDNAOracle
// (idna_test.go) compares the package's host parser with them:
//
//   node testdata/gen/idna-oracle.js > /tmp/idna-oracle.txt
//   go test -run TestIDNAOracle -args -idna-oracle=/tmp/idna-oracle.txt
//
// The output (about 8 MB) is not committed. Node.js v20.20.2 on 2026-12-01:
// 159 738 code points.
"use strict";
const punycode = require("punycode");

const accepts = (host) => {
  try {
    new URL("http://" + host + "/");
    return 1;
  } catch {
    return 0;
  }
};
const lines = [];
for (let c = 0x80; c <= 0x10ffff; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;
  const s = String.fromCodePoint(c);
  if (/[\p{Cn}\p{Co}]/u.test(s)) continue;
  const withA = "xn--" + punycode.encode("a" + s);
  const alone = "xn--" + punycode.encode(s);
  lines.push(`${c.toString(16)} ${withA} ${accepts(withA)} ${alone} ${accepts(alone)}`);
}
process.stdout.write(lines.join("\n") + "\n");
