import { describe, expect, it } from 'vitest'
import { admissionError, JSON_BUDGET_CODES } from '../src/codes.js'
import {
  defineOptions,
  ON_REFUSAL_OPTION,
  type RefusalEvent,
  refusalEvent,
  reportRefusal,
} from '../src/index.js'

describe('refusalEvent', () => {
  it('copies code, status, limit and option from an AdmissionError and nothing else', () => {
    const error = admissionError('ERR_JSON_TOO_DEEP', {
      limit: 64,
      observed: 65,
      path: '/a/b',
      offset: 9,
    })
    const event = refusalEvent(error, 'body-admission', { route: 'notes', principal: 'cred:ada' })
    expect(event).toStrictEqual({
      code: 'ERR_JSON_TOO_DEEP',
      status: JSON_BUDGET_CODES.ERR_JSON_TOO_DEEP.status,
      limit: 64,
      option: 'maxDepth',
      control: 'body-admission',
      route: 'notes',
      principal: 'cred:ada',
    })
    expect(Object.isFrozen(event)).toBe(true)
  })

  it('leaves out limit, option, route and principal when they do not apply, and keeps status present', () => {
    const event = refusalEvent({ code: 'ERR_JSON_UNSUPPORTED_VALUE' }, 'stdio')
    expect(Object.keys(event).sort()).toEqual(['code', 'control', 'status'])
    expect(event.status).toBeUndefined()
    const empty = refusalEvent({ code: 'ERR_JSON_SYNTAX' }, 'json', { route: '', principal: '' })
    expect(Object.keys(empty).sort()).toEqual(['code', 'control', 'status'])
  })

  it('cuts a route to 200 characters and a principal to 128', () => {
    const event = refusalEvent({ code: 'ERR_JSON_TOO_LARGE', status: 413 }, 'json', {
      route: 'r'.repeat(5_000),
      principal: 'p'.repeat(5_000),
    })
    expect(event.route).toHaveLength(200)
    expect(event.principal).toHaveLength(128)
  })

  it('refuses a control name outside a–z 0–9 - of at most 40 characters', () => {
    for (const control of ['', 'Body', 'has space', `a${'b'.repeat(40)}`, '-lead']) {
      expect(() => refusalEvent({ code: 'ERR_JSON_TOO_LARGE' }, control)).toThrow(TypeError)
    }
    expect(() => refusalEvent({ code: 'ERR_JSON_TOO_LARGE' }, `a${'b'.repeat(39)}`)).not.toThrow()
  })
})

describe('reportRefusal', () => {
  const event = refusalEvent({ code: 'ERR_JSON_TOO_LARGE', status: 413, limit: 10 }, 'json')

  it('calls the hook once with the event', () => {
    const seen: RefusalEvent[] = []
    reportRefusal((e) => seen.push(e), event)
    expect(seen).toEqual([event])
  })

  it('does nothing without a hook', () => {
    expect(() => reportRefusal(undefined, event)).not.toThrow()
  })

  it('catches a hook that throws', () => {
    expect(() =>
      reportRefusal(() => {
        throw new Error('hook failed')
      }, event),
    ).not.toThrow()
  })

  it('does not await a returned promise and catches its rejection', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      let settled = false
      reportRefusal(
        (() =>
          new Promise<void>((_, reject) =>
            setTimeout(() => {
              settled = true
              reject(new Error('late'))
            }, 5),
          )) as unknown as (e: RefusalEvent) => void,
        event,
      )
      expect(settled).toBe(false)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(settled).toBe(true)
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})

describe('ON_REFUSAL_OPTION', () => {
  const table = defineOptions('control', { onRefusal: ON_REFUSAL_OPTION })

  it('resolves to no hook by default and keeps a function', () => {
    expect(table.resolve({}).onRefusal).toBeUndefined()
    const hook = () => {}
    expect(table.resolve({ onRefusal: hook }).onRefusal).toBe(hook)
  })

  it('refuses a hook that is not a function at construction, naming the option', () => {
    expect(() => table.resolve({ onRefusal: 'log' })).toThrow(/onRefusal must be a function/)
  })
})
