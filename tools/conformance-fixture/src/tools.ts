// The suite's fixture tools that answer in one round: content kinds, logging, progress, errors,
// and the 2025-era server-to-client requests (sampling, elicitation). Names, arguments and
// result texts are the ones `@modelcontextprotocol/conformance` 0.2.0-alpha.12 calls and checks.
import { inputRequired, type McpServer } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { NO_SESSION } from './client-requests.js'
import { PNG_BASE64, WAV_BASE64 } from './media.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * What a tool needs from the HTTP handler serving it: a way to announce that the tool list
 * changed on open `subscriptions/listen` streams (the handler's `notify`, bound late).
 */
export interface FixtureNotifier {
  toolsChanged(): void
  promptsChanged(): void
}

/** Registers the one-round fixture tools on `server`, for a server of the given era. */
export function registerContentTools(
  server: McpServer,
  notifier: FixtureNotifier,
  era: 'legacy' | 'modern',
): void {
  server.registerTool('test_simple_text', { description: 'Returns one text block.' }, async () =>
    text('This is a simple text response for testing.'),
  )
  server.registerTool(
    'test_image_content',
    { description: 'Returns one PNG image block.' },
    async () => ({ content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] }),
  )
  server.registerTool(
    'test_audio_content',
    { description: 'Returns one WAV audio block.' },
    async () => ({ content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] }),
  )
  server.registerTool(
    'test_embedded_resource',
    { description: 'Returns one embedded text resource.' },
    async () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  )
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns a text, an image and an embedded resource block.' },
    async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  )
  server.registerTool(
    'test_error_handling',
    { description: 'Always fails; the failure is a tool error result.' },
    async () => {
      throw new Error('This tool intentionally returns an error for testing')
    },
  )
  const logged = async (_args: unknown, ctx: LogContext) => {
    await ctx.mcpReq.log('info', 'Tool execution started')
    await pause(50)
    await ctx.mcpReq.log('info', 'Tool processing data')
    await pause(50)
    await ctx.mcpReq.log('info', 'Tool execution completed')
    return text('Tool with logging executed successfully')
  }
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three info log messages.', inputSchema: z.object({}) },
    logged,
  )
  server.registerTool(
    'test_logging_tool',
    { description: 'Sends three info log messages.', inputSchema: z.object({}) },
    logged,
  )
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken
      for (const progress of [0, 50, 100]) {
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress, total: 100 },
          })
        }
        if (progress < 100) await pause(50)
      }
      return text('Tool with progress executed successfully')
    },
  )
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs the client sampling capability.', inputSchema: z.object({}) },
    async () => {
      // On a 2026-07-28 request the question rides in the result, and the SDK refuses to send
      // a kind the request's declared capabilities do not cover (-32021, HTTP 400). A stateless
      // 2025 request could never receive the answer (see client-requests.ts).
      if (era === 'legacy') return NO_SESSION
      return inputRequired({
        inputRequests: {
          answer: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Say yes.' } }],
            maxTokens: 10,
          }),
        },
      })
    },
  )
  server.registerTool(
    'test_trigger_tool_change',
    {
      description: 'Announces a tool list change to listening clients.',
      inputSchema: z.object({}),
    },
    async () => {
      notifier.toolsChanged()
      return text('Tool list change announced.')
    },
  )
  server.registerTool(
    'test_trigger_prompt_change',
    {
      description: 'Announces a prompt list change to listening clients.',
      inputSchema: z.object({}),
    },
    async () => {
      notifier.promptsChanged()
      return text('Prompt list change announced.')
    },
  )
}

type LogContext = {
  mcpReq: { log: (level: 'info', data: unknown) => Promise<void> }
}
