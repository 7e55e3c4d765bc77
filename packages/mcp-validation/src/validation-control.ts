// The input validation control: built once from the registry and the options, it decorates
// each transport a server connects, with the connection's own facts (the route's surface, the
// refusal hook that knows the caller) given per call rather than as options re-listed by the
// host.

import type { RefusalHook } from '@tollgate/json-budget'
import type { McpTransport } from '@tollgate/mcp-transport/decorator'
import { InputValidationTransport } from './decorator.js'
import {
  assertSchemaRegistry,
  type InputValidationOptions,
  type ResolvedInputValidationOptions,
  resolveInputValidationOptions,
} from './options.js'
import type { SchemaRegistry } from './registry.js'
import {
  applyUnpublishedPolicy,
  registeredToolNames,
  unpublishedTools,
} from './unpublished-tools.js'

/** A server the control can connect: an `McpServer` of either SDK line, or the low-level `Server`. */
export interface ConnectableServer {
  connect(transport: never): Promise<void>
}

/** The facts of one connection that validation judges with. */
export interface ValidationCall {
  /**
   * The tool names the connection's route mounts; `undefined` keeps the control's own
   * `surface` option. Copied into a `Set` once per connection.
   */
  readonly surface?: Iterable<string> | undefined
  /** Called for every request refused on this connection; `undefined` keeps the control's own. */
  readonly onRefusal?: RefusalHook | undefined
  /**
   * The name of the route the connection arrived on, as the host configured it (never a
   * request path): `route` of this connection's refusal events.
   */
  readonly route?: string | undefined
  /**
   * The connection's principal as a report may hold it (a credential's id, never a secret; an
   * anonymous caller as `refusalPrincipal` of `@tollgate/http-admission` derives it, never its
   * address): `principal` of this connection's refusal events, cut to 128 characters.
   */
  readonly principal?: string | undefined
}

/**
 * The input validation control (see {@link inputValidation}): the registry and the resolved
 * options, checked once at construction, and `decorate(transport, call?)` for each connection.
 */
export class InputValidation {
  /** The published input schemas. */
  readonly registry: SchemaRegistry
  /** The resolved options (frozen). */
  readonly options: ResolvedInputValidationOptions
  // The control's mark: a look-alike object is not a control.
  readonly #built = true
  // The tool names already warned about under `unpublishedTools: 'warn'`: one warning per name
  // for the control's life, however many servers (one per session) connect through it.
  readonly #warned = new Set<string>()

  /** @throws TypeError on a bad registry or bad options. */
  constructor(registry: SchemaRegistry, options: InputValidationOptions | undefined = undefined) {
    this.options = resolveInputValidationOptions(options)
    assertSchemaRegistry(registry)
    this.registry = registry
    Object.freeze(this)
  }

  /**
   * Wraps `transport` in an {@link InputValidationTransport} holding this control's policy,
   * with the connection's `surface` and `onRefusal` when `call` gives them.
   * @throws TypeError on a `call.surface` that is not an iterable of names, or an
   *   `onRefusal` that is not a function.
   */
  decorate<T extends McpTransport>(
    transport: T,
    call?: ValidationCall,
  ): InputValidationTransport<T> {
    const options =
      call === undefined || (call.surface === undefined && call.onRefusal === undefined)
        ? this.options
        : resolveInputValidationOptions({
            ...this.options,
            surface: call.surface ?? this.options.surface,
            onRefusal: call.onRefusal ?? this.options.onRefusal,
          })
    return new InputValidationTransport(transport, this.registry, options, {
      route: call?.route,
      principal: call?.principal,
    })
  }

  /**
   * The start-up check on tool names: returns those `registered` holds and the registry has no
   * schema for (sorted), after applying `unpublishedTools` to them (`'warn'`: one process
   * warning per name, code `ERR_TOOL_UNPUBLISHED`, for the control's life).
   * @throws UnpublishedToolError (code `ERR_TOOL_UNPUBLISHED`, `tools`) under
   *   `unpublishedTools: 'error'` when any registered tool has no published schema.
   */
  checkTools(registered: Iterable<string>): readonly string[] {
    const missing = unpublishedTools(registered, (name) => this.registry.has(name))
    applyUnpublishedPolicy(missing, this.options.unpublishedTools, this.#warned)
    return missing
  }

  /**
   * {@link InputValidation.checkTools} on the tools `server` registers: an `McpServer` of SDK
   * 1.32 or 2.x. A server whose tools cannot be seen (the low-level `Server`) is not checked
   * (`[]`); pass its names to `checkTools` instead.
   * @throws UnpublishedToolError as `checkTools` does.
   */
  checkServer(server: unknown): readonly string[] {
    const names = registeredToolNames(server)
    return names === undefined ? [] : this.checkTools(names)
  }

  /**
   * Connects `server` to `transport` decorated by this control (see
   * {@link InputValidation.decorate}), after the start-up check of the tools it registers
   * ({@link InputValidation.checkServer}): a tool with no published schema is named in a process
   * warning (the default) or, under `unpublishedTools: 'error'`, rejects the connection with
   * `ERR_TOOL_UNPUBLISHED`, instead of being a tool that silently vanished.
   */
  connect(
    server: ConnectableServer,
    transport: McpTransport,
    call?: ValidationCall,
  ): Promise<void> {
    try {
      this.checkServer(server)
    } catch (error) {
      return Promise.reject(error)
    }
    const connect = server.connect as (this: ConnectableServer, t: McpTransport) => Promise<void>
    return connect.call(server, this.decorate(transport, call))
  }

  /** Whether `value` is a control this class built (not a look-alike). */
  static is(value: unknown): value is InputValidation {
    return typeof value === 'object' && value !== null && #built in value
  }
}

/**
 * Builds the input validation control once: every `tools/call` a decorated transport carries
 * is judged against `registry` before the SDK parses it (see {@link withInputValidation}).
 * @throws TypeError at construction on a bad registry or bad options.
 */
export function inputValidation(
  registry: SchemaRegistry,
  options: InputValidationOptions | undefined = undefined,
): InputValidation {
  return new InputValidation(registry, options)
}
