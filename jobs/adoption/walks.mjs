// The walks: for each package README section, what its install line is (`install`: the words
// its `npm install` line must contain), the framework the section is about (`frameworks`:
// installed at the version the workspace pins), how its snippet is found (`snippet`: a marker
// in the fenced code, never a copy kept here), and what a stranger checks once it runs.
import { expect, send, stdioPeer } from './lib.mjs'

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}
const deep = (n) => `${'['.repeat(n)}${']'.repeat(n)}`
const initialize = (id) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'walk', version: '0' },
    },
  })
const call = (id, name, args) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })

/** The problem+json or Fastify error `code` of an HTTP refusal. */
const codeOf = (r) => r.json?.code ?? r.json?.error?.data?.code

async function refusedWith(r, status, code) {
  expect(
    r.status === status && codeOf(r) === code,
    `bad request: expected ${status} ${code}, got ${r.status} ${codeOf(r) ?? r.text.slice(0, 80)}`,
  )
}

/** A check on what a script printed: a string it contains, or a pattern it matches. */
const printed = (what) => (run) =>
  expect(
    typeof what === 'string' ? run.out.includes(what) : what.test(run.out),
    `expected it to print ${typeof what === 'string' ? JSON.stringify(what) : what}`,
  )

export const WALKS = [
  {
    pkg: 'json-budget',
    section: 'Usage',
    snippet: { marker: 'chargeJson(JSON.parse(text)' },
    kind: 'script',
    bad: 'a body one level too deep',
    check: [
      printed('refused ERR_JSON_TOO_DEEP 32 422'),
      printed('{"id":1,"tags":["home","list"]} 31'),
    ],
  },
  {
    pkg: 'lexical-preflight',
    section: 'Usage: one shot',
    snippet: { marker: 'preflight(body,' },
    kind: 'script',
    bad: '33 open brackets',
    check: [printed('admitted { notes: [ 1, 2, 3 ] }'), printed('refused ERR_JSON_TOO_DEEP 32 32')],
  },
  {
    pkg: 'lexical-preflight',
    section: 'Usage: incremental',
    snippet: { marker: 'createPreflight(options)' },
    kind: 'script',
    bad: 'none shown (good path only)',
    check: [printed('{ nodes: 6, depth: 2, bytes: 37 }')],
  },
  {
    pkg: 'http-admission',
    section: 'Express 5 (quick start)',
    frameworks: ['express', '@types/express'],
    snippet: { marker: "from 'express'" },
    kind: 'http',
    bad: 'depth 5 on /tags (maxDepth 4)',
    async check(port) {
      const good = await send(port, 'POST', '/tags', '{"tag":"home"}')
      expect(good.status === 200 && good.json?.tag === 'home', `good request: ${good.status}`)
      const notes = await send(port, 'POST', '/notes', '{"title":"groceries"}')
      expect(
        notes.status === 200 && notes.json?.title === 'groceries',
        `json() route: ${notes.status}`,
      )
      await refusedWith(
        await send(port, 'POST', '/tags', `{"a":${deep(4)}}`),
        422,
        'ERR_JSON_TOO_DEEP',
      )
    },
  },
  {
    pkg: 'http-admission',
    section: 'node:http',
    snippet: { marker: 'admitNodeRequest(' },
    kind: 'http',
    bad: 'depth 65',
    async check(port) {
      const good = await send(port, 'POST', '/', '{"a":1}')
      expect(good.status === 200 && good.json?.got?.a === 1, `good request: ${good.status}`)
      await refusedWith(await send(port, 'POST', '/', deep(65)), 422, 'ERR_JSON_TOO_DEEP')
    },
  },
  {
    pkg: 'http-admission',
    section: 'web Request',
    snippet: { marker: 'admitWebRequest(' },
    kind: 'script',
    bad: 'a duplicate key',
    check: [printed('admitted { title: '), printed('refused 422 ERR_JSON_DUPLICATE_KEY')],
  },
  {
    pkg: 'http-admission',
    section: 'Fastify 5',
    frameworks: ['fastify'],
    snippet: { marker: "from '@tollgate/http-admission/fastify'" },
    kind: 'http',
    bad: 'depth 33 (maxDepth 32)',
    async check(port) {
      const good = await send(port, 'POST', '/notes', '{"title":"groceries"}')
      expect(
        good.status === 200 && good.json?.title === 'groceries',
        `good request: ${good.status}`,
      )
      await refusedWith(
        await send(port, 'POST', '/notes', `{"a":${deep(32)}}`),
        422,
        'ERR_JSON_TOO_DEEP',
      )
    },
  },
  {
    pkg: 'http-admission',
    section: 'Hono',
    frameworks: ['hono', '@hono/node-server'],
    snippet: { marker: "from '@tollgate/http-admission/hono'" },
    kind: 'http',
    bad: 'a duplicate key',
    async check(port) {
      const good = await send(port, 'POST', '/notes', '{"title":"groceries"}')
      expect(
        good.status === 200 && JSON.stringify(good.json).includes('groceries'),
        `good request: ${good.status}`,
      )
      await refusedWith(
        await send(port, 'POST', '/notes', '{"a":1,"a":2}'),
        422,
        'ERR_JSON_DUPLICATE_KEY',
      )
    },
  },
  {
    pkg: 'http-admission',
    section: 'Koa 3',
    frameworks: ['koa', '@types/koa'],
    snippet: { marker: "from '@tollgate/http-admission/koa'" },
    kind: 'http',
    bad: 'a __proto__ key',
    async check(port) {
      const good = await send(port, 'POST', '/', '{"title":"groceries"}')
      expect(
        good.status === 200 && JSON.stringify(good.json).includes('groceries'),
        `good request: ${good.status}`,
      )
      await refusedWith(
        await send(port, 'POST', '/', '{"__proto__":{"x":1}}'),
        422,
        'ERR_JSON_PROTO_KEY',
      )
    },
  },
  {
    pkg: 'mcp-transport',
    section: 'SDK 1.32, stdio',
    install: ['SDK 1.32'],
    snippet: { marker: 'new BoundedStdioServerTransport(process.stdin' },
    kind: 'stdio',
    bad: 'a line 70 deep',
    async check(child) {
      const peer = stdioPeer(child)
      peer.write(initialize(1))
      const good = await peer.next(1)
      expect(
        good.result?.serverInfo?.name === 'mine',
        `initialize: ${JSON.stringify(good).slice(0, 80)}`,
      )
      peer.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'ping',
          params: { a: JSON.parse(deep(70)) },
        }),
      )
      const bad = await peer.next(2)
      expect(
        bad.error?.data?.code === 'ERR_JSON_TOO_DEEP',
        `bad line: ${JSON.stringify(bad).slice(0, 120)}`,
      )
    },
  },
  {
    pkg: 'mcp-transport',
    section: 'SDK 1.32, Streamable HTTP',
    install: ['SDK 1.32'],
    snippet: { marker: 'mcpHttpHandler(transport, mcpHttp)', heading: 'Usage' },
    kind: 'http',
    bad: 'a duplicate key',
    async check(port) {
      const good = await send(port, 'POST', '/mcp', initialize(1), MCP_HEADERS)
      expect(
        good.status === 200 && good.json?.result?.serverInfo?.name === 'mine',
        `initialize: ${good.status}`,
      )
      await refusedWith(
        await send(
          port,
          'POST',
          '/mcp',
          '{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}',
          MCP_HEADERS,
        ),
        422,
        'ERR_JSON_DUPLICATE_KEY',
      )
    },
  },
  {
    pkg: 'mcp-transport',
    section: 'SDK 2.4, stdio',
    install: ['SDK 2.x'],
    snippet: { marker: "from '@modelcontextprotocol/server/stdio'" },
    kind: 'stdio',
    bad: 'a line 70 deep',
    async check(child) {
      const peer = stdioPeer(child)
      peer.write(initialize(1))
      const good = await peer.next(1)
      expect(
        good.result?.serverInfo !== undefined,
        `initialize: ${JSON.stringify(good).slice(0, 80)}`,
      )
      peer.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'ping',
          params: { a: JSON.parse(deep(70)) },
        }),
      )
      const bad = await peer.next(2)
      expect(
        bad.error?.data?.code === 'ERR_JSON_TOO_DEEP',
        `bad line: ${JSON.stringify(bad).slice(0, 120)}`,
      )
    },
  },
  {
    pkg: 'mcp-transport',
    section: 'SDK 2.4, Streamable HTTP',
    install: ['SDK 2.x'],
    frameworks: ['@modelcontextprotocol/node'],
    // SDK 2.4's NodeIncomingMessageLike declares `method?: string`, which Node's IncomingMessage
    // (`string | undefined`) does not meet under exactOptionalPropertyTypes; the README says so.
    exactOptionalPropertyTypes: false,
    snippet: { marker: 'toNodeHandler(createMcpHandler(' },
    kind: 'http',
    bad: 'a duplicate key',
    async check(port) {
      const good = await send(port, 'POST', '/mcp', initialize(1), MCP_HEADERS)
      expect(
        good.status === 200 && good.json?.result?.serverInfo !== undefined,
        `initialize: ${good.status} ${good.text.slice(0, 80)}`,
      )
      await refusedWith(
        await send(
          port,
          'POST',
          '/mcp',
          '{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}',
          MCP_HEADERS,
        ),
        422,
        'ERR_JSON_DUPLICATE_KEY',
      )
    },
  },
  {
    pkg: 'mcp-validation',
    section: 'SDK 1.32, stdio (quick start)',
    install: ['SDK 1.32'],
    snippet: { marker: 'inputValidation(registry).connect(server' },
    kind: 'stdio',
    bad: 'an unknown argument key',
    async check(child) {
      const peer = stdioPeer(child)
      peer.write(initialize(1))
      await peer.next(1)
      peer.write('{"jsonrpc":"2.0","method":"notifications/initialized"}')
      peer.write(call(2, 'echo', { text: 'hi' }))
      const good = await peer.next(2)
      expect(
        good.result?.content?.[0]?.text === 'hi' && !good.result.isError,
        `good call: ${JSON.stringify(good).slice(0, 120)}`,
      )
      peer.write(call(3, 'echo', { text: 'hi', injected: true }))
      const bad = await peer.next(3)
      expect(
        bad.result?.isError === true &&
          /^Invalid arguments for tool echo/.test(bad.result.content?.[0]?.text ?? ''),
        `bad call (ERR_TOOL_ARGUMENTS): ${JSON.stringify(bad).slice(0, 120)}`,
      )
    },
  },
  {
    pkg: 'mcp-validation',
    section:
      'declaration fixtures from the tarballs (SDK 1.32 and 2.x; node10, node16, nodenext, bundler)',
    kind: 'types',
    bad: 'n/a (tsc: strict, exactOptionalPropertyTypes)',
  },
  {
    pkg: 'continuation',
    section: 'Usage',
    snippet: { marker: 'createContinuations(' },
    kind: 'script',
    bad: 'a token redeemed on a route that denies its target',
    check: [
      printed('served on /mcp/team: true'),
      printed(
        /refused on \/mcp\/public: \{\s+isError: true,\s+refusal: \{\s+code: 'ERR_CONTINUATION_EXPIRED_OR_UNKNOWN'/,
      ),
      printed(
        /notes on \/mcp\/public: \{\s+isError: true,\s+refusal: \{ code: 'ERR_TOOL_NOT_FOUND'/,
      ),
    ],
  },
  {
    pkg: 'fleet-limits',
    section: 'Usage (memory store)',
    snippet: { marker: 'memoryLimitStore()' },
    kind: 'script',
    bad: 'none shown (good path only)',
    check: [printed('served\n')],
  },
  {
    pkg: 'gateway',
    section: 'exported controls',
    snippet: { marker: 'toolGuard()' },
    kind: 'script',
    bad: 'an unknown argument key, a drifted description',
    check: [printed('ERR_TOOL_ARGUMENTS\nundefined\n'), printed("reason: 'changed'")],
  },
]
