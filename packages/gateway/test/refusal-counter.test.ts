// refusalCounter with the real prom-client: the hook of a body control behind a node:http server
// on 127.0.0.1 counts each refusal under its code and control, in the registry it was given;
// without it the same refusals leave the registry empty. Labels stay within closed sets.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  admitNodeRequest,
  bodyAdmission,
  createInFlightBudget,
  sendRefusal,
} from '@tollgate/http-admission'
import { type RefusalHook, refusalCounter, refusalEvent } from '@tollgate/json-budget'
import { rawPost } from '@tollgate/test-kit/http-client'
import { Counter, Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  )
})

async function serve(onRefusal: RefusalHook | undefined) {
  const body = bodyAdmission({
    maxBytes: 64,
    maxDepth: 4,
    budget: createInFlightBudget(1024 * 1024),
    onRefusal,
  })
  const reached: unknown[] = []
  const server = createServer(async (req, res) => {
    const result = await admitNodeRequest(req, body)
    if (!result.ok) return sendRefusal(res, result.error)
    reached.push(result.value)
    res.end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  return { port: (server.address() as AddressInfo).port, reached }
}

const post = (port: number, text: string, type = 'application/json') =>
  rawPost(port, { 'content-type': type }, Buffer.from(text), { path: '/' })

async function sendBadInputs(port: number): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < 3; i++) statuses.push((await post(port, `{"a":"${'x'.repeat(100)}"}`)).status)
  statuses.push((await post(port, '[[[[[[]]]]]]')).status)
  statuses.push((await post(port, 'a=1', 'application/x-www-form-urlencoded')).status)
  return statuses
}

function samples(registry: Registry) {
  return registry
    .getMetricsAsJSON()
    .then((metrics) => metrics.find((m) => m.name === 'tollgate_refusals_total'))
}

describe('refusalCounter', () => {
  it('counts each refusal of a control as tollgate_refusals_total{code,control}', async () => {
    const registry = new Registry()
    const { port, reached } = await serve(refusalCounter(Counter, registry))
    expect(await sendBadInputs(port)).toEqual([413, 413, 413, 422, 415])
    expect(reached).toEqual([])
    const metric = await samples(registry)
    const counts = Object.fromEntries(
      (metric?.values ?? []).map((v) => [`${v.labels.code} ${v.labels.control}`, v.value]),
    )
    expect(counts).toEqual({
      'ERR_BODY_TOO_LARGE body-admission': 3,
      'ERR_JSON_TOO_DEEP body-admission': 1,
      'ERR_BODY_MEDIA_TYPE body-admission': 1,
    })
    // The scrape text a Prometheus server reads.
    expect(await registry.metrics()).toContain(
      'tollgate_refusals_total{code="ERR_BODY_TOO_LARGE",control="body-admission"} 3',
    )
  })

  it('counts nothing when the control holds no hook', async () => {
    const registry = new Registry()
    // Registered, but not the control's hook: the refusals are answered and never counted.
    refusalCounter(Counter, registry)
    const { port } = await serve(undefined)
    expect(await sendBadInputs(port)).toEqual([413, 413, 413, 422, 415])
    const metric = await samples(registry)
    expect(metric?.values ?? []).toEqual([])
  })

  it('labels a malformed code, unregistered codes past 64 and controls past 64 names as other', async () => {
    const registry = new Registry()
    const hook = refusalCounter(Counter, registry)
    const event = refusalEvent({ code: 'ERR_BODY_TOO_LARGE', status: 413 }, 'a')
    hook({ ...event, code: 'not-a-code' as never })
    // A wire code the MCP steps name without registering keeps its label, up to 64 of them.
    for (let i = 0; i < 70; i++) hook({ ...event, code: `ERR_WIRE_${i}` })
    for (let i = 0; i < 70; i++) hook(refusalEvent({ code: 'ERR_BODY_TOO_LARGE' }, `c${i}`))
    const values = (await samples(registry))?.values ?? []
    const codes = new Set(values.map((v) => v.labels.code))
    const controls = new Set(values.map((v) => v.labels.control))
    // 64 wire codes, the registered one, and other.
    expect(codes.size).toBe(66)
    expect(codes.has('ERR_WIRE_0') && codes.has('ERR_WIRE_63') && !codes.has('ERR_WIRE_64')).toBe(
      true,
    )
    const otherCode = values.filter((v) => v.labels.code === 'other')
    expect(otherCode.reduce((n, v) => n + v.value, 0)).toBe(1 + 6)
    // `a` and 63 of the 70 controls, then other.
    expect(controls.size).toBe(65)
    expect(values.find((v) => v.labels.control === 'other')?.value).toBe(7)
  })

  it('never labels by principal or route: a thousand callers are one series', async () => {
    const registry = new Registry()
    const hook = refusalCounter(Counter, registry)
    for (let i = 0; i < 1000; i++) {
      hook(
        refusalEvent({ code: 'ERR_BODY_TOO_LARGE', status: 413 }, 'body-admission', {
          route: `r${i}`,
          principal: `anonymous#${i.toString(16).padStart(16, '0')}`,
        }),
      )
    }
    const values = (await samples(registry))?.values ?? []
    expect(values).toHaveLength(1)
    expect(Object.keys(values[0]?.labels ?? {}).sort()).toEqual(['code', 'control'])
    expect(values[0]?.value).toBe(1000)
  })

  it('registers in prom-client’s global registry when given none, and refuses a second one there', async () => {
    const { register } = await import('prom-client')
    try {
      refusalCounter(Counter)
      expect(await register.getSingleMetric('tollgate_refusals_total')).toBeDefined()
      expect(() => refusalCounter(Counter)).toThrow()
    } finally {
      register.removeSingleMetric('tollgate_refusals_total')
    }
  })
})
