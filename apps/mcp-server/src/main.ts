import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createContinuations, pinoAuditSink } from '@tollgate/continuation'
import { callerKeys } from '@tollgate/http-admission'
import { loadSchemaRegistry } from '@tollgate/mcp-validation'
import { createAudit } from './audit.js'
import { publishTools } from './build-server.js'
import { openCapabilityStore } from './capability-store.js'
import { parseCli, USAGE } from './cli.js'
import { defaultConfig, loadConfig } from './config.js'
import { openContinuationStore } from './continuation-store.js'
import { messageControls } from './controls.js'
import { CredentialRegistry } from './credentials.js'
import { createDrain } from './drain.js'
import { openSharedLimits } from './fleet-limits-store.js'
import { startHttpServer } from './http-server.js'
import { principalQuota } from './principal-quota.js'
import { openSealedHandles } from './sealing-keys.js'
import { describeStartError } from './start-error.js'
import { startHelp } from './start-help.js'
import { startStdioServer } from './stdio-server.js'
import { KnowledgeStore } from './store/knowledge-store.js'
import { SEED_DATA } from './store/seed.js'
import { ROUTES } from './surfaces.js'
import type { ServerContext } from './tools/context.js'

async function main(): Promise<void> {
  const cli = parseCli(process.argv.slice(2))
  if (cli === 'help') {
    process.stderr.write(USAGE)
    return
  }
  const { audit, logger } = createAudit({ repeatWindowMs: cli.auditRepeatWindowMs })
  const embedded = cli.config === undefined
  const config = embedded ? defaultConfig() : loadConfig(cli.config!)
  // Before the demo tokens are printed: a server that cannot reach its Redis does not start.
  const opened = await openContinuationStore(
    cli.redisUrl ?? config.redisUrl,
    audit,
    cli.maxContinuationsPerCredential,
  )
  // Grants and revocations live in the same Redis, so every instance reads one table.
  const capabilityStore = await openCapabilityStore(cli.redisUrl ?? config.redisUrl, audit)
  if (embedded) {
    // The demo tokens are drawn at start and exist only in this process's memory and this line.
    audit('demo_credentials', {
      note: 'embedded demo credentials; pass --config <file> to use your own',
      credentials: config.credentials.map((c) => ({
        id: c.id,
        token: c.token,
        capabilities: c.capabilities,
      })),
    })
  }
  if (cli.unsafeDisableInputValidation) {
    audit('unsafe_configuration', {
      warning:
        'INPUT VALIDATION IS DISABLED (--unsafe-disable-input-validation): unknown keys are silently dropped. Test-only; never run this in production.',
    })
    process.stderr.write(
      '\n!!! WARNING: --unsafe-disable-input-validation: tools/call arguments are NOT validated against schemas/mcp/. TEST USE ONLY. !!!\n\n',
    )
  }
  if (cli.unsafeRegisterUnpublishedTool) {
    process.stderr.write(
      '\n!!! WARNING: --unsafe-register-unpublished-tool: probe.unpublished is registered without a published schema. TEST USE ONLY. !!!\n\n',
    )
  }
  // The store is wrapped only to count writes, so a test can ask the server whether anything
  // was minted: an injected name that reached a tool shows as a mint even when the answer looks
  // like the baseline.
  const inner = opened.store
  let writes = 0
  const countingStore = {
    set: (key: string, value: string, ttlMs: number, owner?: string, pool?: string) => {
      writes += 1
      return inner.set(key, value, ttlMs, owner, pool)
    },
    get: (key: string) => inner.get(key),
    delete: (key: string) => inner.delete(key),
  }
  const context: ServerContext = {
    store: new KnowledgeStore(SEED_DATA),
    credentials: new CredentialRegistry(config, capabilityStore),
    continuations: createContinuations({
      store: countingStore,
      audit: pinoAuditSink(logger),
      thresholdBytes: cli.heavyThresholdBytes,
      ttlMs: cli.continuationTtlMs,
    }),
    // Read and checked before anything serves: a bad key file stops the start.
    handles: openSealedHandles(cli.sealingKeysFile, audit, pinoAuditSink(logger)),
    continuationWrites: () => writes,
    audit,
    anonymousRoutes: new Set(config.anonymous?.routes ?? []),
    registerUnpublishedProbe: cli.unsafeRegisterUnpublishedTool,
  }
  // Fail at start, not on the first call: every published schema compiles, and the tool
  // table and schemas/mcp/ name the same tools (a row without a schema or a schema without a
  // row stops the server here), so a tool added without a schema cannot slip past validation.
  const registry = loadSchemaRegistry(cli.schemasDir)
  const published = publishTools(registry)
  const controls = messageControls({
    registry: cli.unsafeDisableInputValidation ? undefined : registry,
    maxResultBytes: cli.maxResultBytes,
  })
  if (cli.stdio) {
    const credentialId = config.stdioCredential ?? config.credentials[0]!.id
    const { closed } = await startStdioServer(context, {
      credentialId,
      maxLineBytes: cli.maxLineBytes,
      controls,
      published,
    })
    // A Redis connection would keep the process alive after the input ends.
    void closed.then(() => Promise.all([opened.close(), capabilityStore.close()]))
    return
  }
  // With a Redis, every per-principal quota is decided there, so the fleet holds it once.
  const limits = await openSharedLimits(cli.redisUrl ?? config.redisUrl, audit, {
    maxConcurrent: cli.maxRequestsInFlightPerPrincipal,
    requestsPerMinute: cli.requestsPerMinutePerPrincipal,
    maxSessionsPerCredential: cli.maxSessionsPerCredential,
    instances: cli.fleetInstances,
    leaseMs: cli.fleetLeaseMs,
  })
  const drain = createDrain()
  const { port, close } = await startHttpServer(context, {
    host: cli.host,
    port: cli.port,
    maxBodyBytes: cli.maxBodyBytes,
    controls,
    published,
    schemas: registry,
    sessions: cli,
    callers: callerKeys({ trustedProxies: cli.trustedProxies, ipv6PrefixBits: cli.ipv6PrefixBits }),
    quota:
      limits?.shared.quota ??
      principalQuota({
        maxConcurrent: cli.maxRequestsInFlightPerPrincipal,
        requestsPerMinute: cli.requestsPerMinutePerPrincipal,
      }),
    ...(limits === undefined ? {} : { shared: limits.shared, storeHealth: limits.health }),
    drain,
  })
  const base = `http://${cli.host.includes(':') ? `[${cli.host}]` : cli.host}:${port}`
  audit('listening', { host: cli.host, port, routes: ROUTES.map((r) => `${base}${r.path}`) })
  // For a person, after the machine-readable line: how to reach the server in one paste.
  process.stderr.write(
    startHelp({
      base,
      routes: ROUTES.map((r) => r.path),
      anonymousRoutes: context.anonymousRoutes,
      demoCredentials: embedded ? config.credentials : undefined,
      main: fileURLToPath(import.meta.url),
      configPath: cli.config === undefined ? undefined : resolve(cli.config),
      node: process.execPath,
      nodeVersion: process.versions.node,
    }),
  )
  // SIGTERM: refuse new MCP requests and answer /readyz 503 at once, let the requests in flight
  // finish within --drain-timeout-ms, then close the sessions (their leases released) and the stores
  // (after the releases already started have reached Redis), and exit 0. A second signal, or a
  // close that hangs past the deadline by 5 s more, exits at once.
  const stop = (signal: string) => {
    if (drain.draining) process.exit(0)
    drain.begin()
    audit('draining', { signal, inFlight: drain.inFlight, deadlineMs: cli.drainTimeoutMs })
    setTimeout(() => process.exit(0), cli.drainTimeoutMs + 5000).unref()
    void drain
      .settled(cli.drainTimeoutMs)
      .then(async ({ inFlight }) => {
        await close()
        await limits?.close()
        await Promise.all([opened.close(), capabilityStore.close()])
        audit('drained', { unfinished: inFlight })
      })
      .finally(() => process.exit(0))
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

main().catch((error: unknown) => {
  process.stderr.write(`tollgate-mcp-server: ${describeStartError(error)}\n`)
  process.exit(1)
})
