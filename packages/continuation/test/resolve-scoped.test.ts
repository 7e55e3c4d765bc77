// Scoped resolution (a caller-composed name is resolved against the route's mounted set, never
// the global registry) through the public API: real views from a real registry.
import { describe, expect, it } from 'vitest'
import {
  createRouteView,
  createToolRegistry,
  resolveScoped,
  TOOL_NOT_FOUND,
  type ToolRegistry,
} from '../src/index.js'
import { ALL, full, group, klass, pub, registry, team } from './fixtures/routes.js'

describe('resolveScoped', () => {
  it('resolves a group dispatcher call to the composed child on the route', () => {
    const r = resolveScoped(team, group('documents', 'get'), [])
    expect(r).toMatchObject({
      ok: true,
      target: {
        name: 'knowledge.documents.get',
        kind: 'group',
        dispatcher: 'knowledge',
        action: 'get',
      },
    })
  })

  it('resolves a class dispatcher call (action, no resource) to dispatcher.action', () => {
    const r = resolveScoped(team, klass('stats'), [])
    expect(r).toMatchObject({
      ok: true,
      target: { name: 'admin.stats', kind: 'class', action: 'stats' },
    })
  })

  it('gives a name mounted on another route and a name that exists nowhere the byte-identical refusal', () => {
    const elsewhere = resolveScoped(pub, group('notes', 'list'), ALL) // mounted on team
    const nowhere = resolveScoped(pub, group('secrets', 'list'), ALL)
    const otherClass = resolveScoped(pub, klass('stats'), ALL) // mounted on team
    const noClass = resolveScoped(pub, klass('nope'), ALL)
    for (const r of [elsewhere, nowhere, otherClass, noClass]) expect(r).toBe(TOOL_NOT_FOUND)
    expect(JSON.stringify(elsewhere)).toBe(JSON.stringify(nowhere))
  })

  it('does no registry lookup at resolution, for a mounted-elsewhere name and a nonexistent one alike', () => {
    let lookups = 0
    const counting: ToolRegistry = {
      size: registry.size,
      names: registry.names,
      get: (name) => {
        lookups++
        return registry.get(name)
      },
    }
    const view = createRouteView({
      name: '/mcp/public',
      registry: counting,
      ceiling: 'read',
      mount: ['knowledge', 'knowledge.**'],
      deny: ['knowledge.notes.*'],
    })
    lookups = 0
    expect(resolveScoped(view, group('notes', 'list'), ALL)).toBe(TOOL_NOT_FOUND)
    expect(resolveScoped(view, group('ghosts', 'list'), ALL)).toBe(TOOL_NOT_FOUND)
    expect(resolveScoped(view, group('documents', 'get'), ALL).ok).toBe(true)
    expect(lookups).toBe(0)
  })

  it('refuses a tool above the ceiling, carved out, or lacking a capability with the same refusal', () => {
    expect(resolveScoped(team, group('notes', 'create'), ALL)).toBe(TOOL_NOT_FOUND) // write > read
    expect(resolveScoped(full, group('notes', 'create'), ALL).ok).toBe(true)
    expect(resolveScoped(team, klass('export'), [])).toBe(TOOL_NOT_FOUND)
    expect(resolveScoped(team, klass('export'), ['export']).ok).toBe(true)
    expect(resolveScoped(team, klass('export'), undefined)).toBe(TOOL_NOT_FOUND)
  })

  it('applies the strict grammar: no case folding, no normalization, no separators or padding in segments', () => {
    const bad: unknown[] = [
      'Documents',
      'DOCUMENTS',
      'documents ',
      ' documents',
      'documents.get',
      'docu\u200bments',
      'ｄocuments',
      'documents\u0000',
      '',
      'd'.repeat(65),
      '1documents',
      'documents*',
      '**',
      42,
      null,
      undefined,
      ['documents'],
      { toString: () => 'documents' },
    ]
    for (const resource of bad)
      expect(resolveScoped(team, group(resource, 'get'), ALL)).toBe(TOOL_NOT_FOUND)
    for (const action of bad) expect(resolveScoped(team, klass(action), ALL)).toBe(TOOL_NOT_FOUND)
  })

  it('accepts a segment of 64 characters and refuses 65', () => {
    const long = `a${'b'.repeat(63)}`
    const reg = createToolRegistry([{ name: `g.${long}.get`, tier: 'read' }])
    const view = createRouteView({ name: 'r', registry: reg, mount: ['g.**'], ceiling: 'read' })
    expect(
      resolveScoped(view, { kind: 'group', dispatcher: 'g', resource: long, action: 'get' }, []).ok,
    ).toBe(true)
    expect(
      resolveScoped(
        view,
        { kind: 'group', dispatcher: 'g', resource: `${long}b`, action: 'get' },
        [],
      ),
    ).toBe(TOOL_NOT_FOUND)
  })

  it('keeps a group dispatcher inside its own prefix: another dispatcher’s child is not reachable', () => {
    // resource "admin"? The composed name is knowledge.admin.stats, which exists nowhere.
    expect(resolveScoped(full, group('admin', 'stats'), ALL)).toBe(TOOL_NOT_FOUND)
  })

  it('resolves a flat tool by its own name and refuses one outside the grammar', () => {
    expect(resolveScoped(team, { kind: 'tool', name: 'continuation.fetch' }, []).ok).toBe(true)
    expect(resolveScoped(team, { kind: 'tool', name: 'Continuation.fetch' }, [])).toBe(
      TOOL_NOT_FOUND,
    )
    expect(resolveScoped(team, { kind: 'nope' } as never, [])).toBe(TOOL_NOT_FOUND)
  })

  // The control removed: resolving against a full-surface table (what a lookup in the global
  // registry amounts to) lets a public caller reach the carved-out notes.
  it('lets the public route reach notes when resolution uses the global surface instead (control removed)', () => {
    expect(resolveScoped(pub, group('notes', 'list'), ALL)).toBe(TOOL_NOT_FOUND)
    expect(resolveScoped(full, group('notes', 'list'), ALL).ok).toBe(true)
  })

  it('throws a TypeError for a view not made by createRouteView()', () => {
    expect(() => resolveScoped({ ...team }, group('documents', 'get'), [])).toThrow(TypeError)
  })
})
