// Shared benchmark helpers: one timing method (mitata's per-iteration p50) and one results
// format (bench/results/<name>.json) for every benchmark, so the report reads them all alike.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { measure } from 'mitata'

/** Median nanoseconds per call of `fn` (mitata, at least 12 samples and `minMs` of CPU time). */
export async function medianNs(fn, minMs = 300) {
  const stats = await measure(fn, { min_cpu_time: minMs * 1e6 })
  return stats.p50
}

/** The machine a figure was measured on. */
export function machine() {
  const cpu = cpus()
  return { node: process.version, cores: cpu.length, cpu: cpu[0]?.model ?? 'unknown' }
}

/**
 * Writes `bench/results/<name>.json`: `{ name, date, machine, rows }`, where each row names
 * its instance, the subject and the anchor, both figures and their ratio.
 */
export function writeResults(name, rows, extra = {}) {
  const dir = new URL('./results/', import.meta.url)
  mkdirSync(dir, { recursive: true })
  const out = { name, date: new Date().toISOString(), machine: machine(), rows, ...extra }
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(out, null, 2)}\n`)
  return out
}

/** Prints rows as a Markdown table (the form bench/README.md records). */
export function printTable(headers, rows) {
  console.log(`| ${headers.join(' | ')} |`)
  console.log(`|${headers.map(() => ' --- ').join('|')}|`)
  for (const row of rows) console.log(`| ${row.join(' | ')} |`)
}
