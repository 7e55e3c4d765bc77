/** What {@link startHelp} is told about the running server. */
export interface StartHelpInput {
  /** `http://host:port`, no trailing slash. */
  readonly base: string
  /** Every route path, in order. */
  readonly routes: readonly string[]
  /** Route paths that admit anonymous callers. */
  readonly anonymousRoutes: ReadonlySet<string>
  /** The embedded demo credentials; `undefined` when a config file supplied the tokens. */
  readonly demoCredentials: readonly { id: string; token: string }[] | undefined
  /** Absolute path of `dist/main.js`. */
  readonly main: string
  /** Absolute path of the config file, when one was given. */
  readonly configPath: string | undefined
  /** The Node executable (`process.execPath`). */
  readonly node: string
  /** The Node version (`process.versions.node`). */
  readonly nodeVersion: string
}

/** The newest MCP Inspector that runs on Node 20 (its CLI has no `--header`). */
export const INSPECTOR_NODE20 = '@modelcontextprotocol/inspector@0.15.0'

/** The Inspector 2.x the help names on Node >= 22.19 (its CLI sends headers). */
export const INSPECTOR_CURRENT = '@modelcontextprotocol/inspector@2.12.0'

/** The MCP protocol version the printed `initialize` asks for. */
export const HELP_PROTOCOL_VERSION = '2025-06-18'

/** The stateless MCP revision the printed `server/discover` and `tools/call` speak. */
export const HELP_MODERN_PROTOCOL_VERSION = '2026-07-28'

/** The tool the printed 2026 `tools/call` calls: on every route, no arguments. */
export const HELP_MODERN_TOOL = 'project.list'

function atLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split('.').map(Number)
  return a > major || (a === major && b >= minor)
}

/** Single-quotes a value for a POSIX shell. */
function sh(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`
}

/**
 * The start-up help printed on stderr after `listening`, for a person: every route's URL (and
 * which admit anonymous callers), the demo tokens, one `curl` line that performs `initialize`
 * with `Authorization: Bearer` (MCP 2025), two that speak 2026-07-28 (`server/discover` and a
 * `tools/call`, no session), one MCP Inspector command line that works on this Node, and
 * the `mcpServers` entry an MCP client config takes for stdio. No line of it is JSON, so it
 * never reads as an audit line. With a config file, the token is `$TOLLGATE_TOKEN`: the help
 * never prints a token it did not draw.
 */
export function startHelp(input: StartHelpInput): string {
  const first = input.demoCredentials?.[0]
  const token = first?.token ?? '$TOLLGATE_TOKEN'
  const full = `${input.base}${input.routes[0]}`
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: HELP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'curl', version: '0' },
    },
  })
  const auth = `Authorization: Bearer ${token}`
  const post = (headers: readonly string[], body: string) =>
    [
      'curl -sS -i -X POST',
      sh(full),
      '-H',
      first ? sh(auth) : `"${auth}"`,
      '-H',
      sh('Content-Type: application/json'),
      '-H',
      sh('Accept: application/json, text/event-stream'),
      ...headers.flatMap((h) => ['-H', sh(h)]),
      '-d',
      sh(body),
    ].join(' ')
  const curl = post([], initialize)
  // The 2026-07-28 way: no initialize, no session; the revision in the header and in every
  // request's `_meta`, the method (and the tool) mirrored in headers.
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': HELP_MODERN_PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  const modern = (method: string, params: Record<string, unknown>, name?: string) =>
    post(
      [
        `MCP-Protocol-Version: ${HELP_MODERN_PROTOCOL_VERSION}`,
        `Mcp-Method: ${method}`,
        ...(name === undefined ? [] : [`Mcp-Name: ${name}`]),
      ],
      JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }),
    )
  const discover = modern('server/discover', {})
  const call = modern('tools/call', { name: HELP_MODERN_TOOL, arguments: {} }, HELP_MODERN_TOOL)
  const stdioArgs = [
    input.main,
    '--stdio',
    ...(input.configPath ? ['--config', input.configPath] : []),
  ]
  const inspector = atLeast(input.nodeVersion, 22, 19)
    ? [
        `npx -y ${INSPECTOR_CURRENT} --cli ${sh(full)} --transport http`,
        `--header ${first ? sh(auth) : `"${auth}"`} --method tools/list`,
      ].join(' ')
    : // 0.15's CLI sends no headers and rewrites an HTTP URL not ending in /mcp to /mcp, so on
      // Node 20 it connects over stdio.
      [`npx -y ${INSPECTOR_NODE20} --cli`, ...[input.node, ...stdioArgs].map(sh)].join(' ') +
      ' --method tools/list'
  const mcpServers = JSON.stringify(
    { mcpServers: { tollgate: { command: input.node, args: stdioArgs } } },
    null,
    2,
  )
  const lines = [
    '',
    'tollgate reference MCP server is listening.',
    '',
    'Routes (Streamable HTTP):',
    ...input.routes.map(
      (r) =>
        `  ${input.base}${r}${input.anonymousRoutes.has(r) ? '  (also anonymous: no Authorization header needed)' : ''}`,
    ),
    '',
    input.demoCredentials
      ? 'Demo tokens (drawn at start, valid until this process exits):'
      : 'Tokens: those of your config file (set TOLLGATE_TOKEN to one to paste the lines below).',
    ...(input.demoCredentials ?? []).map((c) => `  ${c.id}: ${c.token}`),
    '',
    'Initialize a session with curl (MCP 2025; the Mcp-Session-Id response header names it):',
    `  ${curl}`,
    '',
    `Or the ${HELP_MODERN_PROTOCOL_VERSION} way, without initialize or session (server/discover, then a tools/call):`,
    `  ${discover}`,
    `  ${call}`,
    '',
    `MCP Inspector (Node ${input.nodeVersion}):`,
    `  ${inspector}`,
    '',
    'MCP client config (stdio), e.g. claude_desktop_config.json:',
    ...mcpServers.split('\n').map((l) => `  ${l}`),
    '',
  ]
  return `${lines.join('\n')}\n`
}
