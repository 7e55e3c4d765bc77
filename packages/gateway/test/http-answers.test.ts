import { describe, expect, it } from 'vitest'
import { acceptsEventStream } from '../src/http-answers.js'

describe('acceptsEventStream', () => {
  it('finds text/event-stream as any media range of the list, with parameters, spaces or any case', () => {
    for (const accept of [
      'text/event-stream',
      'application/json, text/event-stream',
      'application/json,text/event-stream;q=0.5',
      'TEXT/Event-Stream ; q=1, application/json',
      ['application/json', 'text/event-stream'],
    ]) {
      expect(acceptsEventStream(accept)).toBe(true)
    }
  })

  it('refuses a list without it, a longer type that starts with it, and a parameter that names it', () => {
    for (const accept of [
      undefined,
      '',
      'application/json',
      'text/event-streams',
      'text/event-stream-x, application/json',
      'application/json; profile=text/event-stream',
      'xtext/event-stream',
      '*/*',
    ]) {
      expect(acceptsEventStream(accept)).toBe(false)
    }
  })
})
