// A refused stdio line is not held: once the preflight refuses a line, the bytes the transport
// kept for it are let go at once, not when the line ends (which an attacker need never send).
// Measured on the built package (dist) in a child process with `--expose-gc`: the Buffer memory
// after a full collection, while a 32 MiB line is open, then after a byte that refuses it (the
// refusal itself is answered at the line's end).
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

const DIST = new URL('../dist/index.js', import.meta.url).href
const MiB = 1024 * 1024

const SCRIPT = `
import { Readable, Writable } from 'node:stream'
import { BoundedStdioServerTransport } from ${JSON.stringify(DIST)}
const MiB = 1024 * 1024
const stdin = new Readable({ read: () => {} })
const stdout = new Writable({ write: (_chunk, _encoding, callback) => callback() })
const transport = new BoundedStdioServerTransport(stdin, stdout, { maxLineBytes: 64 * MiB })
const refusals = []
transport.onerror = (error) => refusals.push(error.code)
await transport.start()
const buffers = () => { gc(); gc(); return process.memoryUsage().arrayBuffers }
const before = buffers()
// An open JSON string, 32 chunks of 1 MiB, emitted straight to the transport's listener.
stdin.emit('data', Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"a":"'))
for (let i = 0; i < 32; i++) stdin.emit('data', Buffer.alloc(MiB, 0x61))
const open = buffers() - before
stdin.emit('data', Buffer.from([0xff]))
await new Promise((resolve) => setImmediate(resolve))
const refused = buffers() - before
// The line's end: only now is the refusal answered and reported.
stdin.emit('data', Buffer.from('\\n'))
await new Promise((resolve) => setImmediate(resolve))
console.log(JSON.stringify({ open, refused, refusals }))
`

describe('BoundedStdioServerTransport memory', () => {
  it('lets go of a refused line at once, before its end arrives', () => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--input-type=module', '-e', SCRIPT],
      { encoding: 'utf8' },
    )
    const { open, refused, refusals } = JSON.parse(out)
    expect(refusals).toEqual(['ERR_JSON_INVALID_UTF8'])
    // The control: while the line is open and admissible, its 32 MiB is held.
    expect(open).toBeGreaterThan(24 * MiB)
    expect(refused).toBeLessThan(4 * MiB)
  })
})
