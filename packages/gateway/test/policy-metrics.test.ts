import { Counter, Registry, register } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { gatewayMetrics } from '../src/metrics.js'

function series(body: string, name: string): string[] {
  return body.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
}

describe('gatewayMetrics', () => {
  it('counts admissions and refusals by code, route and tool, in Prometheus text', async () => {
    const m = gatewayMetrics({ routes: ['/mcp'] })
    m.setTools(['echo', 'get-sum'])
    m.admitted('/mcp', 'echo')
    m.admitted('/mcp', 'echo')
    m.refused('ERR_TOOL_ARGUMENTS', '/mcp', 'get-sum')
    m.refused('-32602', '/mcp', 'echo')
    m.upstreamSeconds(0.004)
    m.childRestarted()
    const { contentType, body } = await m.render()
    expect(contentType).toMatch(/^text\/plain/)
    expect(series(body, 'tollgate_gateway_admitted_total')).toEqual([
      'tollgate_gateway_admitted_total{route="/mcp",tool="echo"} 2',
    ])
    expect(series(body, 'tollgate_gateway_refused_total').sort()).toEqual([
      'tollgate_gateway_refused_total{code="-32602",route="/mcp",tool="echo"} 1',
      'tollgate_gateway_refused_total{code="ERR_TOOL_ARGUMENTS",route="/mcp",tool="get-sum"} 1',
    ])
    expect(series(body, 'tollgate_gateway_upstream_seconds_count')).toEqual([
      'tollgate_gateway_upstream_seconds_count 1',
    ])
    expect(body).toContain('tollgate_gateway_upstream_seconds_bucket{le="0.005"} 1')
    expect(series(body, 'tollgate_gateway_child_restarts_total')).toEqual([
      'tollgate_gateway_child_restarts_total 1',
    ])
  })

  it('bounds label values: unknown tools, unconfigured routes and odd codes are other', async () => {
    const m = gatewayMetrics({ routes: ['/mcp'] })
    m.setTools(['echo'])
    for (let i = 0; i < 5_000; i++) m.refused(`ERR_X${i}`, `/probe/${i}`, `made-up-${i}`)
    m.refused('not a code', '/mcp', 'echo')
    const body = (await m.render()).body
    const lines = series(body, 'tollgate_gateway_refused_total')
    // 64 distinct codes (the default cap) + the rest as one "other" + the odd code on /mcp.
    expect(lines).toHaveLength(66)
    expect(body).not.toContain('made-up-')
    expect(body).not.toContain('/probe/')
    expect(body).toContain(
      'tollgate_gateway_refused_total{code="other",route="/mcp",tool="echo"} 1',
    )
  })

  it('grows one series per caller-chosen name without the bound (the control removed)', async () => {
    const registry = new Registry()
    const raw = new Counter({
      name: 'raw_refused_total',
      help: 'x',
      labelNames: ['tool'],
      registers: [registry],
    })
    for (let i = 0; i < 5_000; i++) raw.inc({ tool: `made-up-${i}` })
    expect(series(await registry.metrics(), 'raw_refused_total')).toHaveLength(5_000)
  })

  it('labels a tool the upstream stopped serving as "other" and caps names ever served', async () => {
    const m = gatewayMetrics({ maxTools: 2 })
    m.setTools(['a', 'b', 'c'])
    m.admitted('/mcp', 'c')
    m.setTools(['b'])
    m.admitted('/mcp', 'a')
    m.admitted('/mcp', 'b')
    const lines = series((await m.render()).body, 'tollgate_gateway_admitted_total').sort()
    expect(lines).toEqual([
      'tollgate_gateway_admitted_total{route="/mcp",tool="b"} 1',
      'tollgate_gateway_admitted_total{route="/mcp",tool="other"} 2',
    ])
  })

  it('keeps its own registry: two instances and the global register stay apart', async () => {
    const a = gatewayMetrics()
    const b = gatewayMetrics()
    a.childRestarted()
    expect(series((await b.render()).body, 'tollgate_gateway_child_restarts_total')).toEqual([
      'tollgate_gateway_child_restarts_total 0',
    ])
    expect(await register.metrics()).not.toContain('tollgate_gateway')
  })

  it('throws at construction on a bad option', () => {
    expect(() => gatewayMetrics({ maxTools: 0 })).toThrow(TypeError)
    expect(() => gatewayMetrics({ routes: '/mcp' as never })).toThrow(TypeError)
  })
})
