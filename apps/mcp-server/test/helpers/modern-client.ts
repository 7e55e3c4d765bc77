// A raw 2026-07-28 client: no initialize, no session; every request carries the revision in
// its `MCP-Protocol-Version` header and in `_meta`, its method in `Mcp-Method` and, for a tool
// call, the tool in `Mcp-Name`. Plain node:http (so a test can pick the local address a caller
// connects from), and it ignores the published schemas.
import { request } from 'node:http'

/** The stateless revision. */
export const MODERN_VERSION = '2026-07-28'

/** The per-request `_meta` envelope of the revision. */
export const MODERN_META = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
})

/** One answer: status, headers, body text. */
export interface ModernResponse {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

/** How a request is sent: a credential, a local address, extra or replaced headers. */
export interface ModernOptions {
  readonly token?: string | undefined
  /** The address the client connects from (any of 127.0.0.0/8 on Linux). */
  readonly localAddress?: string | undefined
  readonly headers?: Record<string, string> | undefined
  readonly method?: string | undefined
}

/** Sends `body` (an object, or raw text) with the 2026 headers; resolves with the answer. */
export function send2026(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  options: ModernOptions = {},
): Promise<ModernResponse> {
  const { port, pathname } = new URL(url)
  const payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        path: pathname,
        method: options.method ?? 'POST',
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN_VERSION,
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
          ...headers,
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    if (options.method === undefined || options.method === 'POST') req.end(payload)
    else req.end()
  })
}

/** A 2026 request of `method` with `params` (the envelope added), id `id`. */
export function request2026(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernOptions & { readonly id?: number; readonly name?: string } = {},
): Promise<ModernResponse> {
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? 7,
    method,
    params: { ...params, _meta: MODERN_META },
  }
  return send2026(
    url,
    body,
    { 'mcp-method': method, ...(options.name === undefined ? {} : { 'mcp-name': options.name }) },
    options,
  )
}

/** A 2026 `tools/call` of `name` with `args` (`Mcp-Name` set to the tool). */
export function call2026(
  url: string,
  name: string,
  args: unknown,
  options: ModernOptions & { readonly id?: number } = {},
): Promise<ModernResponse> {
  return request2026(url, 'tools/call', { name, arguments: args }, { ...options, name })
}
