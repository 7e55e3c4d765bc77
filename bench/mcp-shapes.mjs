// The MCP tools and argument shapes shared by the mcp-validation and mcp-e2e benchmarks, so
// both measure the same calls against the same handlers.
import { z } from 'zod'

/** Registers `knowledge.search` and `notes.tag` (the handlers' zod shapes) on `server`. */
export function registerShapeTools(server) {
  server.registerTool(
    'knowledge.search',
    {
      inputSchema: {
        projectId: z.string(),
        query: z.string().min(1).max(2000),
        limit: z.number().int().min(1).max(50).optional(),
      },
    },
    async (args) => ({ content: [{ type: 'text', text: `hits for ${args.query.length}` }] }),
  )
  server.registerTool(
    'notes.tag',
    {
      inputSchema: {
        projectId: z.string(),
        tags: z.array(z.object({ id: z.string(), label: z.string() })).max(500),
      },
    },
    async (args) => ({ content: [{ type: 'text', text: `tagged ${args.tags.length}` }] }),
  )
  return server
}

/** The three named `tools/call` inputs of the validation rows. */
export const VALIDATION_INPUTS = {
  'A knowledge.search, 3 keys (~60 B of arguments)': {
    name: 'knowledge.search',
    arguments: { projectId: 'demo-project', query: 'roadmap q3', limit: 10 },
  },
  'B knowledge.search, 1 KB query': {
    name: 'knowledge.search',
    arguments: { projectId: 'demo-project', query: 'x'.repeat(1000), limit: 10 },
  },
  'C notes.tag, 200 nested objects (~8 KB)': {
    name: 'notes.tag',
    arguments: {
      projectId: 'demo-project',
      tags: Array.from({ length: 200 }, (_, i) => ({
        id: `n-${i}`,
        label: `label ${i} ${'y'.repeat(10)}`,
      })),
    },
  },
}
