// Test helper: in-process stdio for a transport under test: a readable the test pushes lines
// into and a writable that collects every line the transport writes, parsed as JSON.
import { Readable, Writable } from 'node:stream'

/** The input the test pushes into, the output the transport writes to, and what it wrote. */
export function linePipes() {
  const input = new Readable({ read: () => {} })
  let text = ''
  const output = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString()
      callback()
    },
  })
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages as the wire gives them
  const written = (): any[] =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  return { input, output, written, text: () => text }
}
