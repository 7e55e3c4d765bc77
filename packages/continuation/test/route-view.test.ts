import { describe, expect, it } from 'vitest'
import {
  authorizeOnRoute,
  compilePattern,
  createRouteView,
  createToolRegistry,
  TIERS,
  tierRank,
} from '../src/index.js'
import { ALL, pub, registry, team } from './fixtures/routes.js'

describe('createToolRegistry', () => {
  it('throws a TypeError for a bad name, tier, capability or a duplicate', () => {
    expect(() => createToolRegistry([{ name: 'Bad', tier: 'read' }])).toThrow(TypeError)
    expect(() => createToolRegistry([{ name: 'a..b', tier: 'read' }])).toThrow(TypeError)
    expect(() => createToolRegistry([{ name: 'a', tier: 'root' as never }])).toThrow(TypeError)
    expect(() => createToolRegistry([{ name: 'a', tier: 'read', capabilities: [''] }])).toThrow(
      TypeError,
    )
    expect(() =>
      createToolRegistry([
        { name: 'a', tier: 'read' },
        { name: 'a', tier: 'write' },
      ]),
    ).toThrow(TypeError)
  })

  it('copies and freezes descriptors', () => {
    const caps = ['x']
    const reg = createToolRegistry([{ name: 'a', tier: 'read', capabilities: caps }])
    caps.push('y')
    expect(reg.get('a')?.capabilities).toEqual(['x'])
    expect(Object.isFrozen(reg.get('a'))).toBe(true)
    expect(Object.isFrozen(reg.names)).toBe(true)
  })
})

describe('tierRank', () => {
  it('orders read < write < admin', () => {
    expect(TIERS.map(tierRank)).toEqual([0, 1, 2])
  })
})

describe('compilePattern', () => {
  it('matches literal segments, * for one segment and a final ** for one or more', () => {
    expect(compilePattern('a.b').matches('a.b')).toBe(true)
    expect(compilePattern('a.*').matches('a.b')).toBe(true)
    expect(compilePattern('a.*').matches('a.b.c')).toBe(false)
    expect(compilePattern('a.*').matches('a')).toBe(false)
    expect(compilePattern('a.**').matches('a.b.c')).toBe(true)
    expect(compilePattern('a.**').matches('a')).toBe(false)
    expect(compilePattern('**').matches('x.y')).toBe(true)
    expect(compilePattern('*.b').matches('z.b')).toBe(true)
  })

  it('throws a TypeError for a pattern outside the grammar', () => {
    for (const bad of ['', 'a.**.b', 'doc*', 'a..b', 'A', 'a.b ', '***']) {
      expect(() => compilePattern(bad)).toThrow(TypeError)
    }
  })
})

describe('createRouteView', () => {
  it('is frozen and lists the surface: mounted, carved, within the ceiling', () => {
    expect(Object.isFrozen(team)).toBe(true)
    expect(Object.isFrozen(team.names)).toBe(true)
    expect(pub.names).toEqual([
      'knowledge',
      'knowledge.documents.get',
      'knowledge.documents.search',
      'knowledge.projects.list',
      'continuation.fetch',
    ])
    expect(team.names).toContain('knowledge.notes.list')
    expect(team.names).not.toContain('knowledge.notes.create')
    expect(team.names).not.toContain('admin.reindex')
  })

  it('lists per caller: a tool needing a capability is hidden from a caller without it', () => {
    expect(team.list([]).map((t) => t.name)).not.toContain('admin.export')
    expect(team.list(ALL).map((t) => t.name)).toContain('admin.export')
    expect(team.list(undefined).map((t) => t.name)).not.toContain('knowledge.notes.list')
  })

  it('throws a TypeError for a missing name, a bad pattern or an unknown ceiling', () => {
    expect(() => createRouteView({ name: '', registry, mount: ['**'], ceiling: 'read' })).toThrow(
      TypeError,
    )
    expect(() =>
      createRouteView({ name: 'r', registry, mount: ['a.**.b'], ceiling: 'read' }),
    ).toThrow(TypeError)
    expect(() =>
      createRouteView({ name: 'r', registry, mount: ['**'], ceiling: 'root' as never }),
    ).toThrow(TypeError)
    expect(() =>
      createRouteView({ name: 'r', registry, mount: 'x' as never, ceiling: 'read' }),
    ).toThrow(TypeError)
  })
})

describe('authorizeOnRoute', () => {
  it('names the dimension that refuses: membership, carve_out, ceiling, capability', () => {
    expect(authorizeOnRoute(pub, 'admin.stats', ALL)).toBe('membership')
    expect(authorizeOnRoute(pub, 'nowhere.at.all', ALL)).toBe('membership')
    expect(authorizeOnRoute(pub, 'knowledge.notes.list', ALL)).toBe('carve_out')
    expect(authorizeOnRoute(team, 'knowledge.notes.create', ALL)).toBe('ceiling')
    expect(authorizeOnRoute(team, 'admin.export', [])).toBe('capability')
    expect(authorizeOnRoute(team, 'admin.export', ['export'])).toBeUndefined()
  })
})
