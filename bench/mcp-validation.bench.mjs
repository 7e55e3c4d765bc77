// withInputValidation's overhead on a complete in-memory tools/call round trip with the SDK
// (Client → InMemoryTransport → McpServer → handler → result → Client): the subject server's
// transport is decorated, the anchor's is not, same run, same calls, rounds alternating.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { chargeJson, resolveJsonLimits } from '@tollgate/json-budget'
import {
  checkToolCall,
  createSchemaRegistry,
  resolveInputValidationOptions,
  withInputValidation,
} from '@tollgate/mcp-validation'
import { machine, printTable, writeResults } from './lib.mjs'
import { registerShapeTools, VALIDATION_INPUTS } from './mcp-shapes.mjs'

const DRAFT = 'https://json-schema.org/draft/2020-12/schema'
const BASE = 'https://schemas.tollgate.dev/bench/'
const context = {
  $schema: DRAFT,
  $id: `${BASE}tool-context.schema.json`,
  type: 'object',
  properties: {
    projectId: { type: 'string', maxLength: 63, pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
  },
  required: ['projectId'],
}
const search = {
  $schema: DRAFT,
  $id: `${BASE}knowledge.search.schema.json`,
  type: 'object',
  allOf: [{ $ref: context.$id }],
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 2000 },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
  },
  required: ['query'],
  unevaluatedProperties: false,
}
const tag = {
  $schema: DRAFT,
  $id: `${BASE}notes.tag.schema.json`,
  type: 'object',
  allOf: [{ $ref: context.$id }],
  properties: {
    tags: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', maxLength: 16, pattern: '^n-[0-9]{1,12}$' },
          label: { type: 'string', maxLength: 32 },
        },
        required: ['id', 'label'],
        additionalProperties: false,
      },
    },
  },
  required: ['tags'],
  unevaluatedProperties: false,
}
const registry = createSchemaRegistry([
  { file: 'tool-context.schema.json', source: 'bench', schema: context },
  { file: 'knowledge.search.schema.json', source: 'bench', schema: search },
  { file: 'notes.tag.schema.json', source: 'bench', schema: tag },
])

function build() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  return registerShapeTools(server)
}

async function connect(decorated) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await build().connect(decorated ? withInputValidation(serverSide, registry) : serverSide)
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(clientSide)
  return client
}

const inputs = VALIDATION_INPUTS

// The machine this runs on is shared and loaded, so batch timings drift by more than the effect
// being measured. Calls are therefore interleaved one by one (anchor, subject, order alternating)
// and each side's figure is its median per-call time over the same stretch of wall time. The
// pure judgement (`checkToolCall`, what the decorator adds per call) and the structural charge
// inside it (`chargeJson`) are timed in tight loops as a breakdown.
const CALLS = 3000
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
async function timeOne(fn) {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start)
}
function loopNs(fn) {
  const samples = []
  for (let r = 0; r < 15; r++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < 2000; i++) fn()
    samples.push(Number(process.hrtime.bigint() - start) / 2000)
  }
  return median(samples)
}

const plain = await connect(false)
const guarded = await connect(true)
const options = resolveInputValidationOptions()
// The same limits checkToolCall charges with, resolved once as it resolves them.
const limits = resolveJsonLimits({
  maxDepth: options.maxDepth,
  maxNodes: options.maxNodes,
  maxBytes: options.maxBytes,
})
const rows = []
for (const [instance, call] of Object.entries(inputs)) {
  for (const client of [plain, guarded]) {
    const r = await client.callTool(call)
    if (r.isError) throw new Error(`${instance}: ${JSON.stringify(r)}`)
  }
  const anchors = []
  const subjects = []
  for (let i = 0; i < CALLS + 300; i++) {
    const first = i % 2 === 0
    const a = first ? await timeOne(() => plain.callTool(call)) : undefined
    const b = await timeOne(() => guarded.callTool(call))
    const a2 = first ? a : await timeOne(() => plain.callTool(call))
    if (i >= 300) {
      anchors.push(a2)
      subjects.push(b)
    }
  }
  const anchorNs = median(anchors)
  const subjectNs = median(subjects)
  const checkNs = loopNs(() => checkToolCall(registry, call, options))
  const chargeNs = loopNs(() => chargeJson(call.arguments, limits))
  rows.push({
    instance,
    bytes: Buffer.byteLength(JSON.stringify(call.arguments)),
    anchor: 'undecorated in-memory tools/call round trip',
    anchorNs,
    subject: 'withInputValidation round trip',
    subjectNs,
    ratio: subjectNs / anchorNs,
    checkNs,
    chargeNs,
    goal: '<= 1.05',
  })
}
await plain.close()
await guarded.close()

const fmt = (ns) => `${(ns / 1e3).toFixed(1)} µs`
console.log(`machine: ${JSON.stringify(machine())}`)
printTable(
  [
    'input',
    'argument bytes',
    'undecorated p50 (anchor)',
    'decorated p50',
    'ratio (goal ≤ 1.05)',
    'checkToolCall',
    'of which chargeJson',
  ],
  rows.map((r) => [
    r.instance,
    r.bytes.toLocaleString('en-US'),
    fmt(r.anchorNs),
    fmt(r.subjectNs),
    r.ratio.toFixed(3),
    fmt(r.checkNs),
    fmt(r.chargeNs),
  ]),
)
writeResults('mcp-validation', rows, { calls: CALLS })
