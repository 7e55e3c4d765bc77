import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'

/**
 * The server declares the `prompts` capability and serves none: `prompts/list` answers an
 * empty list, and `prompts/get` one fixed refusal. The SDK's own `prompts/get` handler answers
 * an unknown name with a message that quotes it; this one never echoes the caller.
 */
export function registerPrompts(mcp: McpServer): void {
  mcp.server.setRequestHandler('prompts/list', () => ({ prompts: [] }))
  mcp.server.setRequestHandler('prompts/get', () => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Prompt not found')
  })
}
