import { GATEWAY_CLI_OPTIONS } from './cli-option-table.js'

/** A command line the gateway cannot start with; `message` names the option. */
export class GatewayUsageError extends Error {
  readonly code = 'ERR_GATEWAY_USAGE'
  constructor(message: string) {
    super(message)
    this.name = 'GatewayUsageError'
  }
}

/** The `--help` text: usage, then every option with its default. */
export function gatewayHelp(): string {
  const rows = GATEWAY_CLI_OPTIONS.map((s) => {
    const name = s.kind === 'flag' ? s.flag : `${s.flag} <${s.kind === 'integer' ? 'n' : 'value'}>`
    const dflt = s.value === undefined ? 'none' : String(s.value)
    return `  ${name.padEnd(30)} ${s.doc} (default: ${dflt})`
  })
  return [
    'Usage: tollgate-gateway [options] -- <command> [args…]',
    '       tollgate-gateway [options] --upstream <url>',
    '       tollgate-gateway pins approve --pins <file> [--tool <name>]… -- <command> [args…]',
    '       tollgate-gateway pins approve --pins redis:<name> --redis-url <url> [--tool <name>]… -- <command> [args…]',
    '',
    'Serves an MCP server (a stdio child, or a Streamable HTTP upstream) over Streamable HTTP at',
    '/mcp (or over stdio with --stdio), with every tollgate admission control in front of it.',
    '',
    'Options:',
    ...rows,
    `  ${'--help'.padEnd(30)} print this help and exit`,
    '',
  ].join('\n')
}
