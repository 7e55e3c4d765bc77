import type { Readable, Writable } from 'node:stream'
import { BoundedStdioServerTransport, type JsonRpcMessage } from '@tollgate/mcp-transport'
import { dispatchMessage } from './dispatch.js'
import type { CallerSession, MessagePipeline } from './pipeline.js'

/** Host-only options of {@link serveStdio}. */
export interface StdioFrontOptions {
  readonly input: Readable
  readonly output: Writable
  readonly maxLineBytes: number
  readonly pipeline: MessagePipeline
}

/**
 * Serves one client over stdio with the bounded stdio transport of `@tollgate/mcp-transport`
 * (lines capped at `maxLineBytes` before decoding, the lexical preflight with duplicate keys and
 * `__proto__` refused). While the output is backed up (the client is not reading), the input is
 * paused, so a client that never reads cannot make the gateway hold its answers. The
 * upstream's progress and log messages about a request are written to the client before its
 * answer, and so are its requests of its client (sampling, elicitation, roots; relayed under the
 * gateway's ids), whose answers the client writes back as lines.
 * @returns a promise that settles when the input has ended and every answer is written.
 */
export async function serveStdio(options: StdioFrontOptions): Promise<void> {
  const transport = new BoundedStdioServerTransport(options.input, options.output, {
    maxLineBytes: options.maxLineBytes,
    duplicateKeys: 'refuse',
    protoKeys: 'refuse',
  })
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
  })
  transport.onerror = () => {}
  const session: CallerSession = { logLevel: undefined }
  // One client: its sinks are the same for every message, made once.
  // The upstream's progress and log messages about a request go to the one client in order.
  const notify = (n: { method: string; params: unknown }): void => {
    const note: Record<string, unknown> = { jsonrpc: '2.0', method: n.method }
    if (n.params !== undefined) note.params = n.params
    transport.send(note as JsonRpcMessage).catch(() => {})
  }
  // The upstream's requests of its client (sampling, elicitation, roots) go to it as lines.
  const ask = (request: Readonly<Record<string, unknown>>): void => {
    transport.send(request as unknown as JsonRpcMessage).catch(() => {})
  }
  transport.onmessage = (message: JsonRpcMessage) => {
    const m = message as { method?: unknown; id?: unknown }
    if (m.method === undefined && m.id !== undefined) {
      // The client's answer to a request relayed to it; one naming no such request is dropped.
      options.pipeline.answer(message, session)
      return
    }
    void dispatchMessage(message, options.pipeline, { notify, ask, session }).then((response) => {
      if (response === undefined) return
      const sent = transport.send(response as unknown as JsonRpcMessage)
      if (options.output.writableNeedDrain) {
        options.input.pause()
        void sent.then(() => options.input.resume())
      }
    })
  }
  await transport.start()
  await closed
}
