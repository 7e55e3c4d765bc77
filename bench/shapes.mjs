// The named inputs the benchmarks share (an envelope, many small keys, bulk records): one
// definition, so a figure for "a 1 KB tools/call envelope" means the same value in every benchmark.

/** a: a 1 KB tools/call envelope. */
export const envelope = () => ({
  jsonrpc: '2.0',
  id: 17,
  method: 'tools/call',
  params: {
    name: 'knowledge.search',
    arguments: {
      projectId: 'demo-project',
      query: 'x'.repeat(820),
      limit: 10,
      filters: { kind: ['note', 'doc'], since: '2026-01-01' },
    },
  },
})

/** b: a 100 KB object of 5,000 small keys. */
export const manyKeys = () =>
  Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key_${i}`, i % 3 ? `v${i}` : i]))

/** h: "10 MB of records" in the tables: 76,000 records of five fields, 6,576,861 bytes of JSON. */
export const records = () =>
  Array.from({ length: 76_000 }, (_, i) => ({
    id: i,
    name: `record-${i}`,
    tags: ['x', 'y'],
    score: i / 7,
    ok: i % 2 === 0,
  }))
