// Generates testdata/queue-consumer.json: the last five rows of 一致性样例 of
// 消息队列 0.1.0 as data. Run from the repository root:
//
//	node testdata/gen/queue-consumer.js > testdata/queue-consumer.json
//
// Each step names the spec function it calls (读取队列批次, 确认队列消息,
// 重试队列消息); the platform list names the Batch methods the host calls
// (ack, retry). The expected text of every 读取队列批次 step is what a
// JavaScript host gives: JSON.stringify of {queue, messages:[{id, attempts, timestamp, body}]} with
// each body JSON.parse'd from the text the platform holds.
'use strict';

const read = (queue, batch) => JSON.stringify({
  queue,
  messages: batch.map(m => ({id: m.id, attempts: m.attempts, timestamp: m.timestamp, body: JSON.parse(m.body)})),
});

const err = (kind, message) => ({kind, message});
const NOT_QUEUE = err('violation', '当前事件不是队列事件');
const INDEX = err('violation', '队列消息序号越界');
const DELAY = err('violation', '延迟秒数须在 0 至 43200 之间');

const queue = 'PAGE_QUEUE';
const three = [
  {id: '9a1c0e3f5b7d4e2a8c6b0f1e3d5a7c9b', attempts: 1, timestamp: 1700000000123,
    body: '{"kind":"page","url":"/release/x","version":"v8","refresh":true}'},
  {id: 'msg-2', attempts: 2, timestamp: 1700000001000,
    body: ' [1.0, 2e2, -0, "三", {"b":1, "a":null, "1":true}] '},
  {id: 'msg-3', attempts: 3, timestamp: 1700000002999,
    body: '{"$句柄":"1","s":"引号\\"与\\\\反斜线\\u2028","n":1e21}'},
];

const rows = [
  {
    情境: '队列事件里读取含三条消息的批次',
    必须观察到: '顺序、`id`、`attempts`、毫秒 `timestamp` 与 `body` 与平台一致；此时没有任何消息被确认或重试',
    event: 'queue', queue, batch: three,
    steps: [{call: '读取队列批次', expect: read(queue, three)}, {call: '读取队列批次', expect: read(queue, three)}],
    throws: false, platform: [], outcome: 'ok', redelivered: [],
  },
  {
    情境: '依次确认 0、延后重试 1（30 秒）、不处理 2',
    必须观察到: '平台收到 `ack`、`retry({delaySeconds:30})`，第三条无调用',
    event: 'queue', queue, batch: three,
    steps: [{call: '确认队列消息', n: 0}, {call: '重试队列消息', n: 1, delaySeconds: 30}],
    throws: false,
    platform: [{call: 'ack', n: 0}, {call: 'retry', n: 1, delaySeconds: 30}],
    outcome: 'ok',
    redelivered: [{id: 'msg-2', attempts: 3, delaySeconds: 30}],
  },
  {
    情境: '确认序号等于消息数或 -1；重试延迟 -1 或 43201',
    必须观察到: '均抛出可捕获异常，平台未收到相应调用',
    event: 'queue', queue, batch: three,
    steps: [
      {call: '确认队列消息', n: 3, error: INDEX},
      {call: '确认队列消息', n: -1, error: INDEX},
      {call: '重试队列消息', n: 0, delaySeconds: -1, error: DELAY},
      {call: '重试队列消息', n: 0, delaySeconds: 43201, error: DELAY},
      {call: '重试队列消息', n: 3, delaySeconds: 30, error: INDEX},
    ],
    throws: false, platform: [], outcome: 'ok', redelivered: [],
  },
  {
    情境: '队列事件里程序抛出未捕获异常',
    必须观察到: '宿主把失败交还平台（不吞异常），平台整批重投，`attempts` 加一',
    event: 'queue', queue, batch: three,
    steps: [{call: '读取队列批次', expect: read(queue, three)}],
    throws: true, platform: [], outcome: 'exception',
    redelivered: three.map(m => ({id: m.id, attempts: m.attempts + 1, delaySeconds: 0})),
  },
  {
    情境: '普通 HTTP 请求里调用消费函数',
    必须观察到: '抛出可捕获异常 `当前事件不是队列事件`',
    event: 'fetch', queue: null, batch: null,
    steps: [
      {call: '读取队列批次', error: NOT_QUEUE},
      {call: '确认队列消息', n: 0, error: NOT_QUEUE},
      {call: '重试队列消息', n: 0, delaySeconds: 0, error: NOT_QUEUE},
    ],
    throws: false, platform: [], outcome: null, redelivered: [],
  },
];

const doc = {
  spec: '消息队列 0.1.0',
  table: '一致性样例, the last five rows (消费者)',
  source: 'queue-0.1.0.md; 情境 and 必须观察到 verbatim. Read texts computed by testdata/gen/queue-consumer.js with Node.js 20 (JSON.stringify(JSON.parse(body))). The format is in testdata/README.md.',
  rows,
};

process.stdout.write(JSON.stringify(doc, null, 1) + '\n');
