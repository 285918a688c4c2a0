// A model JavaScript host of the 网页入站 functions that need no body stream:
// the spec's rules and hostbridge's decisions (doc.go), each in one line,
// on the WHATWG URL, URLSearchParams and Headers of node.

import { HostError } from './lib.mjs';

export const MSG = {
  noRequest: '当前没有 HTTP 请求',
  requestURL: '入站请求网址无效',
  pathEncoding: '入站路径编码无效',
  headerName: '入站标头名称无效',
  sameOriginPath: '同源网址路径无效',
  sameOriginList: '同源网址的设置或删除列表超过 16 项',
};

// Only these kinds carry a request; any other, known or not, has none.
const REQUEST_KINDS = ['fetch', 'service-fetch', 'durable-fetch'];
// The schemes a request URL can have; others are refused.
const SCHEMES = ['ftp:', 'http:', 'https:', 'ws:', 'wss:'];
const TOKEN = /^[0-9A-Za-z!#$%&'*+\-.^_|~`]{1,256}$/;
const MAX_ITEMS = 16;

// An event: {kind, request: {method, url, headers: [[name, value], …]} or null}.
function request(ev) {
  if (!REQUEST_KINDS.includes(ev.kind) || !ev.request) throw new HostError('failure', MSG.noRequest);
  return ev.request;
}

// requestURL parses Request.url as new URL does, and refuses a scheme a
// request does not have and a host that needs IDNA.
export function requestURL(s) {
  let u;
  try {
    u = new URL(s);
  } catch {
    throw new HostError('failure', MSG.requestURL);
  }
  if (!SCHEMES.includes(u.protocol) || needsIDNA(s)) throw new HostError('failure', MSG.requestURL);
  return u;
}

// needsIDNA: the host of an absolute URL string is not ASCII once
// percent-decoded (the URL parser's own reading of the authority: tabs and
// newlines removed, userinfo up to the last @, the port after a colon).
function needsIDNA(s) {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:[\/\\]*([^\/\\?#]*)/.exec(s.trim().replace(/[\t\n\r]/g, ''));
  const auth = m ? m[1] : '';
  const host = /^(\[[^\]]*\]|[^:]*)/.exec(auth.slice(auth.lastIndexOf('@') + 1))[1];
  return /[^\x00-\x7f]|%[89a-fA-F][0-9a-fA-F]/.test(host);
}

const url = (ev) => requestURL(request(ev).url);

function headerName(name) {
  if (!TOKEN.test(name)) throw new HostError('violation', MSG.headerName);
  return name;
}

function headers(ev) {
  const h = new Headers();
  for (const [k, v] of request(ev).headers ?? []) h.append(k, v);
  return h;
}

// decodedPath percent-decodes the path once and decodes it as strict
// UTF-8; decodeURIComponent does both and throws on either problem.
function decodedPath(u) {
  try {
    return decodeURIComponent(u.pathname);
  } catch {
    throw new HostError('violation', MSG.pathEncoding);
  }
}

// sameOriginURL: the request, then the path, then the lists; then the
// pathname setter, delete then set, and the fragment cleared.
function sameOriginURL(ev, path, set = [], del = []) {
  const u = url(ev);
  if (path !== '' && (!path.startsWith('/') || path.includes('//') || /[\\?#\u0000-\u001f\u007f-\u009f]/.test(path))) {
    throw new HostError('violation', MSG.sameOriginPath);
  }
  if (set.length > MAX_ITEMS || del.length > MAX_ITEMS) throw new HostError('violation', MSG.sameOriginList);
  if (path !== '') u.pathname = path;
  for (const k of del) u.searchParams.delete(k);
  for (const [k, v] of set) u.searchParams.set(k, v);
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.href;
}

// specFunctions: each spec function by its spec name; arg is the name or
// the path, where the function takes one.
export const specFunctions = {
  读取入站事件种类: (ev) => ev.kind,
  读取入站方法: (ev) => request(ev).method,
  读取入站原路径: (ev) => url(ev).pathname,
  读取入站解码路径: (ev) => decodedPath(url(ev)),
  读取入站来源: (ev) => url(ev).origin,
  读取入站主机名: (ev) => url(ev).hostname,
  读取入站原查询: (ev) => url(ev).search,
  读取入站查询参数: (ev, name) => url(ev).searchParams.get(name) ?? '',
  入站查询参数存在: (ev, name) => url(ev).searchParams.has(name),
  读取入站标头值: (ev, name) => (request(ev), headers(ev).get(headerName(name)) ?? ''),
  入站标头存在: (ev, name) => (request(ev), headers(ev).has(headerName(name))),
  构造入站同源网址: sameOriginURL,
};

// call calls a spec function by name; a name the model does not hold is
// an error of the row.
export function call(name, ...args) {
  const f = specFunctions[name];
  if (!f) throw new Error('no spec function ' + JSON.stringify(name));
  return f(...args);
}
