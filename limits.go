package hostbridge

// Every limit of the two specs, named, next to its clause id (CLAUSES.md)
// and the sentence it comes from; the clause names the function that
// enforces it.
// Tests exercise each at N and N+1.

import "time"

// The queue producer's limits (消息队列 0.1.0, 生产者).
const (
	// Q13, Q14: "输入文字与规范化后的文字都不得超过 128 KB，即 128000 个 UTF-8 字节"
	MaxMessageBytes = 128000 // a message body, as given and canonical, in UTF-8 bytes
	// Q16, Q36: "嵌套不得超过 24 层（数组或对象各算一层）"
	MaxMessageDepth = 24 // nesting of a message body (an array or object is one level)
	// Q23, Q64: "延迟秒数须在 0 至 43200（12 小时）之间"
	MaxDelaySeconds = 43200 // a send or retry delay, in seconds (12 hours)
	// Q32: "数组有 1 至 100 项"
	MaxBatchMessages = 100 // messages in one batch send
	// Q34: "全部 body 合计不超过 256000 字节"
	MaxBatchBodyBytes = 256000 // the bodies of one batch together, in bytes
	// Q35: "数组文字不超过 1 MiB"
	MaxBatchBytes = 1 << 20 // the text of one batch, in bytes
)

// The queue consumer's limit (消息队列 0.1.0, 消费者).
const (
	// Q59: "嵌套超过宿主桥限制（32 层）的消息体会使宿主中止本次事件"
	MaxReadDepth = 32 // nesting of a delivered body the consumer reads; deeper aborts the event
)

// The ranges of ConsumerSettings (CheckConsumerSettings). Consumer settings
// are not the spec's — "批大小、重试次数、死信队列属于部署" (Q89) — so these
// are Cloudflare Queues' limits (its Limits page), the platform
// MemoryPlatform fakes (D27).
const (
	// "Maximum consumer batch size: 100 messages"
	maxConsumerBatchSize = 100 // ConsumerSettings.MaxBatchSize, from 1
	// "Maximum Batch wait time: 60 seconds"
	maxConsumerBatchTimeout = 60 * time.Second // ConsumerSettings.MaxBatchTimeout, from 0
	// "Message retries: 100"
	maxConsumerRetries = 100 // ConsumerSettings.MaxRetries, from 0
)

// The inbound request's limits (网页入站 0.8.0).
const (
	// I42, I43: "名称必须是 RFC 9110 令牌字符 … 组成的 1 至 256 字节字符串"
	MaxHeaderNameBytes = 256 // a header name, in bytes
	// I34: "设置或删除列表各最多 16 项，超限失败"
	MaxSameOriginItems = 16 // items in the set list, and in the delete list, of a same-origin URL
	// I47: "参数是字节上限，须在 1 至 16777216（16 MiB）之间"
	MaxBodyLimit = 16 << 20 // the largest limit a bounded body read accepts, in bytes
	// I68: "若超过 16 MiB，属于违规" (decoded lenient text, counted in UTF-8 bytes)
	MaxLenientTextBytes = 16 << 20 // the leniently decoded text, in UTF-8 bytes
	// The digits of a Content-Length the precheck reads as a number; more
	// is over any limit (I56).
	MaxContentLengthDigits = 18
	// I76, I79: "先按上述规则以 2 MiB 上限读取字节 … 规范化后的文字也不得超过 2 MiB"
	JSONBodyLimit = 2 << 20 // the inbound JSON body, read and canonical, in bytes
	// I89: "上限 1 至 8388608，即 8 MiB"
	MaxBoundedJSONLimit = 8 << 20 // the largest limit a bounded JSON read accepts, in bytes
	// D45: inbound JSON nests at most 1000 levels; deeper is status 5.
	MaxJSONDepth = 1000 // nesting of an inbound JSON body
)
