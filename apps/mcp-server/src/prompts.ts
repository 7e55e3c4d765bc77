import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'

/**
 * The server declares the `prompts` capability and serves none: `prompts/list` answers an
 * empty list, and `prompts/get` one fixed refusal. The SDK's own `prompts/get` handler answers
 * an unknown name with a message that quotes it; this one never echoes the caller.
 */
export function registerPrompts(mcp: McpServer): void {
  mcp.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }))
  mcp.server.setRequestHandler(GetPromptRequestSchema, () => {
    throw new McpError(ErrorCode.InvalidParams, 'Prompt not found')
  })
}
