// No SDK module is loaded here: the probe speaks raw JSON-RPC over a structural in-memory
// transport, so it works on a server from either SDK line (1.32's `McpServer` or 2.x's) and
// importing this package loads neither.

type Message = Record<string, unknown>

/** The server side of the probe's channel: the SDK `Transport` shape, structurally. */
interface ProbeTransport {
  start(): Promise<void>
  send(message: Message): Promise<void>
  close(): Promise<void>
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: Message, extra?: object) => void
}

/**
 * What {@link deriveToolSchemas} takes: an `McpServer` of either SDK line, described
 * structurally so the package's declarations need neither installed.
 */
export interface DerivableServer {
  connect(transport: never): Promise<unknown>
  close(): Promise<unknown>
}

/** Any server whose `connect` takes a transport and whose `close` ends it (both SDK lines). */
interface Connectable {
  connect(transport: ProbeTransport): Promise<void>
  close(): Promise<void>
}

const PROBE_PROTOCOL_VERSION = '2025-06-18'

/**
 * Obtains each enabled tool's SDK-derived input schema (the zod-derived JSON Schema the SDK
 * publishes) through public API only: connects an in-memory channel to `server`, runs the
 * `initialize` handshake, pages through `tools/list`, and closes. Works with a `McpServer` from
 * `@modelcontextprotocol/sdk` 1.32 or `@modelcontextprotocol/server` 2.x. `server` must not be
 * connected to another transport (the SDK allows one at a time); connect the real transport
 * afterwards. Returns a map from tool name to schema, sorted by name.
 * @throws Error when the server is already connected or the listing fails.
 */
export async function deriveToolSchemas(server: DerivableServer): Promise<Map<string, unknown>> {
  const waiting = new Map<number, (message: Message) => void>()
  let closed = false
  const transport: ProbeTransport = {
    start: async () => {},
    send: async (message) => {
      const id = message.id
      if (typeof id === 'number' && ('result' in message || 'error' in message)) {
        waiting.get(id)?.(message)
        waiting.delete(id)
      }
    },
    close: async () => {
      if (closed) return
      closed = true
      // A request still waiting is answered as failed rather than left hanging.
      for (const resolve of waiting.values()) resolve({ error: { code: -32000 } })
      waiting.clear()
      transport.onclose?.()
    },
  }
  const target = server as unknown as Connectable
  await target.connect(transport)
  let next = 0
  const request = (method: string, params: Message): Promise<Message> => {
    const id = ++next
    const answer = new Promise<Message>((resolve) => waiting.set(id, resolve))
    transport.onmessage?.({ jsonrpc: '2.0', id, method, params })
    return answer.then((message) => {
      if ('error' in message) throw new Error(`${method} failed during the schema probe`)
      return message.result as Message
    })
  }
  try {
    await request('initialize', {
      protocolVersion: PROBE_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'tollgate-schema-probe', version: '1.0.0' },
    })
    transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const found: [string, unknown][] = []
    let cursor: string | undefined
    do {
      const page = await request('tools/list', cursor === undefined ? {} : { cursor })
      for (const tool of (page.tools ?? []) as { name: string; inputSchema: unknown }[]) {
        found.push([tool.name, tool.inputSchema])
      }
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined
    } while (cursor !== undefined)
    found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return new Map(found)
  } finally {
    await target.close()
  }
}
