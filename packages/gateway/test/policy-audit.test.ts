import { describe, expect, it } from 'vitest'
import { auditLog } from '../src/audit.js'

function sink() {
  const lines: Record<string, unknown>[] = []
  const stream = {
    write(chunk: string) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      return true
    },
  } as unknown as NodeJS.WritableStream
  return { lines, stream }
}

function clock() {
  let t = 0
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('auditLog', () => {
  it('writes one pino JSON line per event with its fields', () => {
    const { lines, stream } = sink()
    const audit = auditLog(stream, { windowMs: 0 })
    audit.event('tool_refused', {
      code: 'ERR_TOOL_ARGUMENTS',
      principal: 'anon:abc',
      route: '/mcp',
      tool: 'echo',
      ok: false,
      ms: 3,
    })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      level: 'info',
      event: 'tool_refused',
      code: 'ERR_TOOL_ARGUMENTS',
      principal: 'anon:abc',
      route: '/mcp',
      tool: 'echo',
      ok: false,
      ms: 3,
    })
    expect(typeof lines[0]?.time).toBe('string')
    audit.close()
  })

  it('writes a long or non-printable value as its length and drops fields a caller could name', () => {
    const { lines, stream } = sink()
    const audit = auditLog(stream, { windowMs: 0 })
    const secret = `sk-${'x'.repeat(200)}`
    audit.event('tool_refused', {
      tool: secret,
      pointer: 'line\nbreak',
      'api-key=hunter2': 'v',
      event: 'forged',
      nested: { a: 1 } as never,
    })
    const text = JSON.stringify(lines)
    expect(lines[0]).toMatchObject({
      event: 'tool_refused',
      tool: '<203 chars>',
      pointer: '<10 chars>',
      droppedFields: 3,
    })
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('xxxxxxxx')
    audit.close()
  })

  it('counts repeats of an identical line within the window and writes the count once', () => {
    const { lines, stream } = sink()
    const c = clock()
    const audit = auditLog(stream, { windowMs: 1_000, now: c.now })
    for (let i = 0; i < 500; i++)
      audit.event('auth_refused', { reason: 'bad_token', route: '/mcp' })
    audit.event('auth_refused', { reason: 'no_route', route: '/x' })
    expect(lines.map((l) => l.reason)).toEqual(['bad_token', 'no_route'])
    c.advance(1_000)
    audit.flush()
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatchObject({
      event: 'auth_refused',
      reason: 'bad_token',
      repeated: 499,
      windowMs: 1_000,
    })
    audit.event('auth_refused', { reason: 'bad_token', route: '/mcp' })
    expect(lines).toHaveLength(4)
    audit.close()
  })

  it('writes every repeat once aggregation is off (the control removed)', () => {
    const { lines, stream } = sink()
    const audit = auditLog(stream, { windowMs: 0 })
    for (let i = 0; i < 500; i++) audit.event('auth_refused', { reason: 'bad_token' })
    expect(lines).toHaveLength(500)
  })

  it('writes a pending count early when more distinct lines than maxKeys are open, and on close', () => {
    const { lines, stream } = sink()
    const audit = auditLog(stream, { windowMs: 60_000, maxKeys: 2, now: clock().now })
    audit.event('e', { n: 1 })
    audit.event('e', { n: 1 })
    audit.event('e', { n: 2 })
    audit.event('e', { n: 3 })
    expect(lines.filter((l) => l.repeated !== undefined)).toEqual([
      expect.objectContaining({ n: 1, repeated: 1 }),
    ])
    audit.event('e', { n: 3 })
    audit.close()
    expect(lines.at(-1)).toMatchObject({ n: 3, repeated: 1 })
  })

  it('throws at construction on a bad option', () => {
    expect(() => auditLog(sink().stream, { windowMs: -1 })).toThrow(TypeError)
    expect(() => auditLog(sink().stream, { window: 1 } as never)).toThrow(TypeError)
  })
})
