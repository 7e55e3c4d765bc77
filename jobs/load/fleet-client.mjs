// The clients of the fleet row (jobs/load/fleet.mjs): raw 2026-07-28 tool calls (no
// initialize, no session; the revision in the headers and in `_meta`), requests whose body is
// held back after its first bytes (they hold a lease while they wait), and the figures of a
// set of answers. Plain node:http on 127.0.0.1; no schema is consulted.
import { Agent, request } from 'node:http'

export const MODERN_VERSION = '2026-07-28'
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
}
const agent = new Agent({ keepAlive: true, maxSockets: 64 })
let nextId = 1

/**
 * The stable code of a refusal body: `data.code` of a JSON-RPC error, a problem's `code`, or the
 * code inside a tool error's text (where its quotes are escaped).
 */
export function codeOf(text) {
  return /\\?"code\\?"\s*:\s*\\?"(ERR_[A-Z0-9_]+)/.exec(text)?.[1] ?? '-'
}

/** How an answer is counted: `served`, or `<status> <code>`. */
export function outcomeOf(status, text) {
  if (status === 200 && text.includes('"result"') && !text.includes('"isError":true'))
    return 'served'
  return `${status} ${codeOf(text)}`
}

/** The body and headers of a 2026 `tools/call` of `tool` with `args`. */
export function toolCall(token, tool = 'project.list', args = {}) {
  const body = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name: tool, arguments: args, _meta: META },
    }),
  )
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(body.length),
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': tool,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  }
  return { body, headers }
}

/** One 2026 tool call to `port` `path`; resolves `{ outcome, retryAfter, ms }`, never rejects. */
export function call2026(port, path, token, { tool, args, timeoutMs = 30_000 } = {}) {
  const { body, headers } = toolCall(token, tool, args)
  const started = performance.now()
  return new Promise((resolve) => {
    const done = (outcome, retryAfter) =>
      resolve({ outcome, retryAfter, ms: performance.now() - started })
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers, agent, timeout: timeoutMs },
      (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () =>
          done(
            outcomeOf(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')),
            res.headers['retry-after'],
          ),
        )
        res.on('error', () => done('reset'))
      },
    )
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', (e) => done(e.message === 'timeout' ? 'timeout' : `error ${e.code ?? ''}`))
    req.end(body)
  })
}

/**
 * A POST whose body is held back after its first ten bytes (own socket, no keep-alive): it holds
 * whatever the server leases at the head. `finish()` sends the rest. `answer()` is the outcome
 * once answered, `undefined` while it waits; `answered` resolves with it.
 */
export function holdPost(port, path, body, headers) {
  let answer
  let req
  const answered = new Promise((resolve) => {
    const settle = (a) => {
      answer ??= a
      resolve(answer)
    }
    req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, connection: 'close' },
      },
      (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () =>
          settle(outcomeOf(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))),
        )
        res.on('error', () => settle('reset'))
      },
    )
    // A refusal that closes the connection before the rest of the body is sent.
    req.on('error', () => settle('reset'))
    req.write(body.subarray(0, 10))
  })
  return {
    answered,
    answer: () => answer,
    finish: () => req.end(body.subarray(10)),
    abort: () => req.destroy(),
  }
}

/** The `q`-quantile of sorted `values` (nearest rank), rounded to 0.1. */
function quantile(sorted, q) {
  if (sorted.length === 0) return null
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return Math.round(sorted[i] * 10) / 10
}

/** Counts of each distinct value, most frequent first. */
export function tally(values) {
  const out = {}
  for (const v of values) out[v] = (out[v] ?? 0) + 1
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]))
}

/** Figures of `samples` (`{ outcome, ms }`) over `seconds`: counts, success rate, latency of the served. */
export function figures(samples, seconds) {
  const served = samples.filter((s) => s.outcome === 'served')
  const ms = served.map((s) => s.ms).sort((a, b) => a - b)
  return {
    requests: samples.length,
    served: served.length,
    successRate:
      samples.length === 0 ? null : Math.round((1000 * served.length) / samples.length) / 1000,
    reqPerS: seconds > 0 ? Math.round((10 * samples.length) / seconds) / 10 : null,
    p50Ms: quantile(ms, 0.5),
    p99Ms: quantile(ms, 0.99),
    outcomes: tally(samples.map((s) => s.outcome)),
  }
}
