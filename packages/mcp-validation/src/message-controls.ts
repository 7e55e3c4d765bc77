// The one place that fixes the order of the MCP message controls. From the wire to the server:
// the transport, then input validation, then the result budget. Validation sits next to the
// wire so it sees every inbound message first and judges the raw `tools/call` arguments before
// the SDK parses them; its refusals go straight back to the wire, bounded by construction. The
// result budget sits next to the server so it charges every result the server sends, whoever
// made the transport (a 2025 session's, a 2026-07-28 request's, stdio's). Both take the
// connection's call, so a replaced result is reported with the route and principal a refused
// request is reported with.

import type { McpTransport } from '@tollgate/mcp-transport/decorator'
import {
  type ConnectableServer,
  InputValidation,
  type ValidationCall,
} from './validation-control.js'

/**
 * A control that decorates a transport, such as the result budget of `@tollgate/mcp-transport`
 * (`createResultBudget(options)`): typed by shape, so this package does not load the HTTP stack
 * of mcp-transport's root entry.
 */
export interface TransportControl {
  /**
   * Returns `transport` wrapped in the control's decorator. `call` is the connection's facts,
   * as validation gets them: the result budget reads `route`, `principal` and `onRefusal`.
   */
  decorate(transport: McpTransport, call?: ValidationCall): McpTransport
}

/** The controls {@link mcpMessageControls} composes, each built once by its own constructor. */
export interface McpMessageControlsOptions {
  /** `inputValidation(registry, options)`; `undefined` leaves arguments unvalidated. */
  readonly validation?: InputValidation | undefined
  /** `createResultBudget(options)` from `@tollgate/mcp-transport`; `undefined` charges nothing. */
  readonly resultBudget?: TransportControl | undefined
}

/** The MCP message controls in their fixed order (see {@link mcpMessageControls}). */
export interface McpMessageControls {
  /** The validation control held, if any. */
  readonly validation: InputValidation | undefined
  /** The result budget held, if any. */
  readonly resultBudget: TransportControl | undefined
  /**
   * Wraps `transport` in every control held, in the fixed order: validation next to the wire,
   * the result budget next to the server, each with the connection's `call` facts (so the
   * call's `onRefusal`, when set, hears both; events tell them apart by `control`). Connect the
   * server to what it returns; over HTTP keep calling the original transport's `handleRequest`.
   */
  decorate(transport: McpTransport, call?: ValidationCall): McpTransport
  /**
   * Connects `server` to `decorate(transport, call)`, after the validation control's start-up
   * check of the tools `server` registers (see `InputValidation.checkServer`): a tool with no
   * published schema is named in a process warning (the default) or, with
   * `unpublishedTools: 'error'`, rejects with `ERR_TOOL_UNPUBLISHED`.
   */
  connect(server: ConnectableServer, transport: McpTransport, call?: ValidationCall): Promise<void>
  /**
   * Makes `server.connect(transport)` do what {@link McpMessageControls.connect} does (the
   * start-up check, then `decorate(transport, call)`), for a server something else connects
   * (the SDK's `createMcpHandler` connects each per-request server itself). Returns `server`.
   */
  guard<S extends ConnectableServer>(server: S, call?: ValidationCall): S
}

/**
 * Composes the MCP message controls once, in the one order they run in: transport → input
 * validation → result budget → server. Hosts (the reference server, the conformance fixture)
 * hold this object and never nest the decorators themselves.
 * @throws TypeError at construction on a `validation` not built by `inputValidation()`, or a
 *   `resultBudget` without a `decorate` method.
 */
export function mcpMessageControls(controls: McpMessageControlsOptions = {}): McpMessageControls {
  if (typeof controls !== 'object' || controls === null) {
    throw new TypeError('mcpMessageControls: controls must be an object')
  }
  const { validation, resultBudget } = controls
  if (validation !== undefined && !InputValidation.is(validation)) {
    throw new TypeError('mcpMessageControls: validation must come from inputValidation()')
  }
  if (
    resultBudget !== undefined &&
    typeof (resultBudget as Partial<TransportControl> | null)?.decorate !== 'function'
  ) {
    throw new TypeError('mcpMessageControls: resultBudget must have a decorate method')
  }
  const decorate = (transport: McpTransport, call?: ValidationCall): McpTransport => {
    const validated = validation === undefined ? transport : validation.decorate(transport, call)
    return resultBudget === undefined ? validated : resultBudget.decorate(validated, call)
  }
  // The start-up check runs before the server is connected: a rejection leaves it unconnected.
  const connectThrough = (
    connect: (transport: McpTransport) => Promise<void>,
    server: ConnectableServer,
    transport: McpTransport,
    call: ValidationCall | undefined,
  ): Promise<void> => {
    try {
      validation?.checkServer(server)
    } catch (error) {
      return Promise.reject(error)
    }
    return connect(decorate(transport, call))
  }
  return Object.freeze({
    validation,
    resultBudget,
    decorate,
    connect(server: ConnectableServer, transport: McpTransport, call?: ValidationCall) {
      const connect = server.connect.bind(server) as (transport: McpTransport) => Promise<void>
      return connectThrough(connect, server, transport, call)
    },
    guard<S extends ConnectableServer>(server: S, call?: ValidationCall): S {
      const connect = server.connect.bind(server) as (transport: McpTransport) => Promise<void>
      ;(server as unknown as { connect: (transport: McpTransport) => Promise<void> }).connect = (
        transport,
      ) => connectThrough(connect, server, transport, call)
      return server
    },
  })
}
