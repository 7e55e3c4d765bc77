import { basename } from 'node:path'
import {
  fromJsonSchema,
  type JsonSchemaType,
  type jsonSchemaValidator,
  McpServer,
  type StandardSchemaWithJSON,
  type Transport,
} from '@modelcontextprotocol/server'
import {
  assertToolPopulation,
  registeredToolNames,
  type SchemaRegistry,
} from '@tollgate/mcp-validation'
import { type MessageControls, sessionCall } from './controls.js'
import { registerPrompts } from './prompts.js'
import { registerResources } from './resources.js'
import type { ServerContext, SessionContext } from './tools/context.js'
import { createToolKit } from './tools/kit.js'
import { TOOL_NAMES, TOOL_TABLE } from './tools/table.js'

/** Server name and version announced at `initialize` and `server/discover`. */
export const SERVER_INFO = Object.freeze({ name: 'tollgate-reference', version: '0.0.0' })

/** The name of the test-only tool registered without a published schema. */
export const UNPUBLISHED_PROBE_TOOL = 'probe.unpublished'

// The SDK is handed each published schema to list it, and a validator that admits everything:
// the raw arguments were judged against the same schema by the input-validation control,
// bounds first, before the SDK saw the message. A second, unbounded Ajv pass would add nothing
// but its cost (and its error messages quote what the caller sent).
const ADMITTED_UPSTREAM: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
}

/** The published input schema of each tool, in the form the SDK registers. */
export type PublishedTools = ReadonlyMap<string, StandardSchemaWithJSON>

/**
 * Checks the tool table against `schemas/mcp/` and builds what the SDK registers, once at
 * start-up: the two sets of names must be equal (a row without a schema, or a schema without a
 * row, fails here) and each row must name the file its schema was read from.
 * @throws Error naming the tools that differ, or the row whose file does not match.
 */
export function publishTools(registry: SchemaRegistry): PublishedTools {
  assertToolPopulation(TOOL_NAMES, registry.tools)
  const published = new Map<string, StandardSchemaWithJSON>()
  for (const row of TOOL_TABLE) {
    if (basename(registry.source(row.name)) !== row.schema) {
      throw new Error(`tool ${row.name}: its schema was read from another file than ${row.schema}`)
    }
    const schema = registry.bundled(row.name) as JsonSchemaType
    published.set(row.name, fromJsonSchema(schema, ADMITTED_UPSTREAM))
  }
  return published
}

const PROBE_SCHEMA = fromJsonSchema({ type: 'object' }, ADMITTED_UPSTREAM)

/**
 * An `McpServer` that connects through tollgate's message controls: `connect(transport)`
 * connects the server to the transport wrapped in them, so they judge every message whoever
 * made the transport (the app's session transport, or the SDK's per-request transport of a
 * 2026-07-28 exchange, which `createMcpHandler` builds and connects itself).
 */
class ControlledMcpServer extends McpServer {
  readonly #controls: MessageControls
  readonly #session: SessionContext
  readonly #audit: ServerContext['audit']
  readonly #probe: boolean

  constructor(server: ServerContext, session: SessionContext, controls: MessageControls) {
    super(SERVER_INFO, {
      capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
    })
    this.#controls = controls
    this.#session = session
    this.#audit = server.audit
    this.#probe = server.registerUnpublishedProbe
  }

  /**
   * Connects through the message controls after the start-up check of every tool this server
   * registers (`checkTools` of the validation control, strict in this app): a tool without a
   * published schema rejects with `ERR_TOOL_UNPUBLISHED` naming it, so a stdio server refuses
   * to start and an HTTP session to open. The test-only probe is exempted by name, and only when
   * its --unsafe flag registered it.
   */
  override connect(transport: Transport): Promise<void> {
    const validation = this.#controls.validation
    if (validation !== undefined) {
      const names = registeredToolNames(this) ?? []
      try {
        validation.checkTools(
          this.#probe ? names.filter((name) => name !== UNPUBLISHED_PROBE_TOOL) : names,
        )
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return super.connect(
      this.#controls.decorate(
        transport,
        sessionCall({
          route: this.#session.route,
          credentialId: this.#session.credentialId,
          quotaKey: this.#session.quotaKey,
          audit: this.#audit,
        }),
      ) as Transport,
    )
  }
}

/**
 * Builds the `McpServer` of one session (2025) or one request (2026-07-28): only the rows of
 * the tool table that the route mounts are registered, each with its published schema, so
 * `tools/list` shows the route's surface and an unmounted tool does not exist; the documents
 * and notes the route mounts are served as resources (`resources.ts`). The server connects
 * through the message controls (see `controls.ts`).
 */
export function buildMcpServer(
  server: ServerContext,
  session: SessionContext,
  published: PublishedTools,
  controls: MessageControls,
): McpServer {
  const mcp = new ControlledMcpServer(server, session, controls)
  registerResources(mcp, server, session)
  registerPrompts(mcp)
  const kit = createToolKit(server, session)
  for (const row of TOOL_TABLE) {
    if (session.route.view.get(row.name) === undefined) continue
    mcp.registerTool(
      row.name,
      { description: row.description, inputSchema: published.get(row.name)! },
      (args: unknown, ctx: unknown) => row.handler(kit, args as never, ctx as never),
    )
  }
  if (server.registerUnpublishedProbe) {
    mcp.registerTool(
      UNPUBLISHED_PROBE_TOOL,
      {
        description: 'Test-only: a tool with no published input schema.',
        inputSchema: PROBE_SCHEMA,
      },
      async () => {
        server.audit('tool_invoked', { tool: UNPUBLISHED_PROBE_TOOL, route: session.route.name })
        return { content: [{ type: 'text', text: '{"probe":"ran"}' }] }
      },
    )
  }
  return mcp
}
