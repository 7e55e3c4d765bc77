import type { Tier } from '@tollgate/continuation'
import type { Capability } from '../config.js'
import {
  admin,
  continuationFetch,
  knowledge,
  knowledgeGet,
  knowledgeSearch,
  knowledgeStatus,
  projectList,
  systemCapabilities,
  type ToolHandler,
} from './handlers.js'
import { TOOL_INPUTS } from './inputs.js'
import { projectExport } from './project-export.js'

/** One MCP tool of the server: everything about it but its input schema's content. */
export interface ToolRow {
  /** The tool's name on the wire. */
  readonly name: string
  /** What `tools/list` says about it. */
  readonly description: string
  /**
   * Its published input schema, a file of `schemas/mcp/` (`<name>.schema.json`): what
   * `tools/list` shows and what the input-validation control judges raw arguments against.
   * Generated from {@link ToolRow.inputSchema} by `tollgate-schemas`.
   */
  readonly schema: string
  /** Its input, stated once (`inputs.ts`): the published file and the handler's types come from it. */
  readonly inputSchema: (typeof TOOL_INPUTS)[keyof typeof TOOL_INPUTS]
  /** The tier scoped resolution authorizes it at (a dispatcher is `read`: its targets are authorized each). */
  readonly tier: Tier
  /** Capabilities a caller needs to reach it (one of them); none: any caller on the route. */
  readonly capabilities?: readonly Capability[]
  /**
   * Largest declared length of a 2026-07-28 `tools/call` of this tool, in bytes, refused 413
   * from the head before a body byte is read. Default: the route's body cap.
   */
  readonly maxRequestBytes?: number
  /** What runs once the call is admitted, resolved on the route and authorized. */
  readonly handler: ToolHandler
}

/** A row as declared: its schema file and its input follow from its name. */
type DeclaredRow = Omit<ToolRow, 'name' | 'schema' | 'inputSchema'> & {
  readonly name: keyof typeof TOOL_INPUTS
}

const ROWS: readonly DeclaredRow[] = [
  {
    name: 'project.list',
    description: 'Lists the projects of the knowledge store.',
    // No arguments: the envelope and `_meta` fit in far less.
    maxRequestBytes: 4096,
    tier: 'read',
    capabilities: ['read'],
    handler: projectList,
  },
  {
    name: 'system.capabilities',
    description: "This route's surface and the caller's current capabilities.",
    // No arguments: the envelope and `_meta` fit in far less.
    maxRequestBytes: 4096,
    tier: 'read',
    handler: systemCapabilities,
  },
  {
    name: 'knowledge.search',
    description:
      'Searches the resources this route mounts (query <= 2,000 characters, limit 1-50).',
    tier: 'read',
    capabilities: ['read'],
    handler: knowledgeSearch as ToolHandler,
  },
  {
    name: 'knowledge.get',
    description: 'Reads one document; over 64 KiB it answers a continuation token.',
    tier: 'read',
    capabilities: ['documents'],
    handler: knowledgeGet as ToolHandler,
  },
  {
    name: 'knowledge.status',
    description: 'Counts the documents and notes of a project.',
    tier: 'read',
    capabilities: ['read'],
    handler: knowledgeStatus as ToolHandler,
  },
  {
    name: 'knowledge',
    description:
      'Group dispatcher: resource (documents, notes) + action (list, get), resolved against this route.',
    tier: 'read',
    handler: knowledge as ToolHandler,
  },
  {
    name: 'admin',
    description: 'Class dispatcher: action (stats, export, revoke, grant) + params.',
    tier: 'read',
    handler: admin as ToolHandler,
  },
  {
    name: 'continuation.fetch',
    description: 'Redeems a continuation token for its heavy result.',
    tier: 'read',
    handler: continuationFetch as ToolHandler,
  },
  {
    name: 'project.export',
    description:
      'Exports a project after a confirmation (2026-07-28: answers input_required with a sealed requestState; the retry carrying it and confirm: true exports).',
    tier: 'read',
    capabilities: ['export'],
    handler: projectExport as ToolHandler,
  },
]

/**
 * The tool table: one row per MCP tool. It is what the server registers (each row whose name
 * the route mounts), what `tools/list` shows (the row's published schema), what scoped
 * resolution knows the tool by (tier, capabilities), and what the start-up check compares with
 * `schemas/mcp/` (the two sets of names must be equal). Adding a tool is a row here, its input
 * in `inputs.ts` and its handler; its schema file is generated (`pnpm schemas`).
 */
export const TOOL_TABLE: readonly ToolRow[] = Object.freeze(
  ROWS.map((row) =>
    Object.freeze({
      ...row,
      schema: `${row.name}.schema.json`,
      inputSchema: TOOL_INPUTS[row.name],
    }),
  ),
)

/** The names of {@link TOOL_TABLE}, in its order. */
export const TOOL_NAMES: readonly string[] = Object.freeze(TOOL_TABLE.map((t) => t.name))
