// The suite's 2025-era fixture tools that call back into the client mid-call: sampling and
// elicitation (`sampling/createMessage`, `elicitation/create` sent server-to-client on the
// request's stream). Served statelessly (`createMcpHandler`'s 2025 fallback) the client's
// answer arrives on a new POST that a new server instance serves, so the request would wait
// until the client gives up: without a session each tool answers a tool error at once instead.
// A 2026-07-28 request has no such channel at all; there the SDK refuses the call.
import type { McpServer } from '@modelcontextprotocol/server'
import { z } from 'zod'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

/** The tool error a server-to-client request gets when no session could carry its answer. */
export const NO_SESSION = {
  content: [
    {
      type: 'text' as const,
      text: 'This stateless server cannot receive an answer to a server-to-client request.',
    },
  ],
  isError: true,
}

/** Registers the sampling and elicitation fixture tools on `server`. */
export function registerClientRequestTools(server: McpServer): void {
  server.registerTool(
    'test_sampling',
    {
      description: 'Asks the client model the given prompt.',
      inputSchema: z.object({ prompt: z.string() }),
    },
    async ({ prompt }, ctx) => {
      if (ctx.sessionId === undefined) return NO_SESSION
      const result = await ctx.mcpReq.requestSampling({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      })
      const content = result.content as { type?: string; text?: string }
      return text(`LLM response: ${content.type === 'text' ? content.text : '(not text)'}`)
    },
  )
  server.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user for a username and an email address.',
      inputSchema: z.object({ message: z.string() }),
    },
    async ({ message }, ctx) => {
      if (ctx.sessionId === undefined) return NO_SESSION
      const result = await ctx.mcpReq.elicitInput({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      })
      return text(
        `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      )
    },
  )
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits one field of each primitive type, each with a default.' },
    async (ctx) => {
      if (ctx.sessionId === undefined) return NO_SESSION
      const result = await ctx.mcpReq.elicitInput({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      })
      return text(
        `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      )
    },
  )
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits one field of each enum form.' },
    async (ctx) => {
      if (ctx.sessionId === undefined) return NO_SESSION
      const result = await ctx.mcpReq.elicitInput({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: {
              type: 'string',
              description: 'Untitled single-select',
              enum: ['option1', 'option2', 'option3'],
            },
            titledSingle: {
              type: 'string',
              description: 'Titled single-select',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Legacy titled enum',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Untitled multi-select',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Titled multi-select',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      })
      return text(
        `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
      )
    },
  )
}
