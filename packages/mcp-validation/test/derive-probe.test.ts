// deriveToolSchemas against a scripted server (the structural `connect`/`close` shape it takes,
// no SDK): what the SDK's own McpServer never does, a paged listing, an unsorted one, a failed
// one, and a server that closes the probe's transport with a request unanswered.
import { describe, expect, it } from 'vitest'
import { deriveToolSchemas } from '../src/agreement.js'

type Message = Record<string, unknown>
interface Probe {
  send(message: Message): Promise<void>
  close(): Promise<void>
  onmessage?: (message: Message) => void
}

/** A server answering each request the probe sends with `answer(method, params)`. */
function scripted(answer: (method: string, params: Message, probe: Probe) => Message | undefined) {
  const seen: Message[] = []
  let closed = 0
  const server = {
    async connect(probe: Probe) {
      probe.onmessage = (message) => {
        seen.push(message)
        if (message.id === undefined) return
        const reply = answer(message.method as string, message.params as Message, probe)
        if (reply !== undefined) void probe.send({ jsonrpc: '2.0', id: message.id, ...reply })
      }
    },
    async close() {
      closed += 1
    },
  }
  return { server, seen, closes: () => closed }
}

const initialized = { result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: {} } }
const tool = (name: string) => ({ name, inputSchema: { type: 'object', title: name } })

describe('deriveToolSchemas against a scripted server', () => {
  it('follows nextCursor through every page and returns the tools sorted by name', async () => {
    const pages: Record<string, Message> = {
      '': { result: { tools: [tool('b'), tool('d')], nextCursor: 'p2' } },
      p2: { result: { tools: [tool('a')], nextCursor: 'p3' } },
      p3: { result: { tools: [tool('c')] } },
    }
    const { server, seen, closes } = scripted((method, params) =>
      method === 'initialize' ? initialized : pages[(params.cursor as string | undefined) ?? ''],
    )
    const schemas = await deriveToolSchemas(server)
    expect([...schemas.keys()]).toEqual(['a', 'b', 'c', 'd'])
    expect(schemas.get('c')).toEqual({ type: 'object', title: 'c' })
    const lists = seen.filter((m) => m.method === 'tools/list').map((m) => m.params)
    expect(lists).toEqual([{}, { cursor: 'p2' }, { cursor: 'p3' }])
    expect(seen.map((m) => m.method)).toContain('notifications/initialized')
    expect(closes()).toBe(1)
  })

  it('rejects when the listing fails, and closes the server', async () => {
    const { server, closes } = scripted((method) =>
      method === 'initialize' ? initialized : { error: { code: -32603, message: 'down' } },
    )
    await expect(deriveToolSchemas(server)).rejects.toThrow(/tools\/list failed/)
    expect(closes()).toBe(1)
  })

  it('closes the probe once: a second close does not report the close again', async () => {
    let closes = 0
    const { server } = scripted((method, _params, probe) => {
      if (method === 'initialize') {
        ;(probe as { onclose?: () => void }).onclose = () => {
          closes += 1
        }
        return initialized
      }
      void probe.close()
      void probe.close()
      return undefined
    })
    await expect(deriveToolSchemas(server)).rejects.toThrow(/tools\/list failed/)
    expect(closes).toBe(1)
  })

  it('rejects instead of hanging when the server closes the probe with a request unanswered', async () => {
    const { server } = scripted((method, _params, probe) => {
      if (method === 'initialize') return initialized
      void probe.close()
      return undefined
    })
    await expect(deriveToolSchemas(server)).rejects.toThrow(/tools\/list failed/)
  })
})
