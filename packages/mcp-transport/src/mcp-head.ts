// What the head of a request says about the MCP message it carries, read once before any body
// byte: the era, and on the 2026-07-28 path the mirrored `Mcp-Method` and `Mcp-Name` and the
// declared length. Nothing here is trusted: the body is checked against it after the parse.
import type { IncomingMessage } from 'node:http'
import { decodeMcpHeaderValue, stripOws } from './mcp-header-value.js'
import type { McpProtocolEras } from './protocol-eras.js'

/** The request head as the 2026-07-28 steps read it. */
export interface McpHead {
  /** `modern` when `MCP-Protocol-Version` names a 2026-07-28-era version the route admits. */
  readonly era: 'modern' | 'legacy'
  /** The admitted modern version (modern era only). */
  readonly version: string | undefined
  /** The HTTP method, upper case. */
  readonly httpMethod: string
  /** `Mcp-Method` as sent (a single header), or `undefined`. */
  readonly method: string | undefined
  /**
   * `Mcp-Name` decoded (`=?base64?…?=` form included); `undefined` when absent; `null` when
   * present but undecodable or repeated.
   */
  readonly name: string | null | undefined
  /** The declared `Content-Length` when it is one plain decimal, else `undefined`. */
  readonly declaredBytes: number | undefined
}

const DIGITS = /^\d{1,16}$/

/** Reads {@link McpHead} from `req`'s headers (never its body). */
export function readMcpHead(req: IncomingMessage, eras: McpProtocolEras): McpHead {
  const verdict = eras.judgeHeader(req.headers['mcp-protocol-version'])
  const modern = verdict.era === 'modern'
  const method = req.headers['mcp-method']
  const rawName = req.headers['mcp-name']
  const length = req.headers['content-length']
  return {
    era: modern ? 'modern' : 'legacy',
    version: modern ? verdict.version : undefined,
    httpMethod: (req.method ?? '').toUpperCase(),
    method: typeof method === 'string' ? stripOws(method) : undefined,
    name: rawName === undefined ? undefined : (decodeMcpHeaderValue(rawName) ?? null),
    declaredBytes: typeof length === 'string' && DIGITS.test(length) ? Number(length) : undefined,
  }
}
