// releaseFinishedJsonResponses on stand-ins with the private shape of the SDK 1.32.x
// web-standard transport: which `_streamMapping` entries it releases and which it must never
// touch (a pending request's, the standalone GET stream, an SSE stream, anything not a
// JSON-response entry). The release against the real SDK, heap measured, is in
// sdk-json-retention.test.ts.
import { describe, expect, it, vi } from 'vitest'
import { releaseFinishedJsonResponses } from '../src/sdk-json-retention.js'

function entry() {
  return { resolveJson: () => {}, cleanup: vi.fn() }
}

function shaped(streams: [string, unknown][], pending: [string, string][] = [], json = true) {
  return {
    _enableJsonResponse: json,
    _standaloneSseStreamId: '_GET_stream',
    _streamMapping: new Map<unknown, unknown>(streams),
    _requestToStreamMapping: new Map<unknown, unknown>(pending),
  }
}

describe('releaseFinishedJsonResponses on the 1.32.x shape', () => {
  it('releases every finished JSON-response entry, and only those', () => {
    const done = entry()
    const other = entry()
    const waiting = entry()
    const standalone = entry()
    const sse = { ...entry(), controller: {} }
    const half = { resolveJson: () => {} }
    const cleanupOnly = { cleanup: vi.fn() }
    const t = shaped(
      [
        ['a', done],
        ['b', other],
        ['c', waiting],
        ['_GET_stream', standalone],
        ['d', sse],
        ['e', half],
        ['f', null],
        ['g', 'x'],
        ['h', cleanupOnly],
      ],
      [['req-1', 'c']],
    )
    expect(releaseFinishedJsonResponses(t)).toBe(2)
    expect(done.cleanup).toHaveBeenCalledTimes(1)
    expect(other.cleanup).toHaveBeenCalledTimes(1)
    for (const kept of [waiting, standalone, sse, cleanupOnly])
      expect(kept.cleanup).not.toHaveBeenCalled()
    // cleanup() here deletes nothing: the release deletes the entry itself.
    expect([...t._streamMapping.keys()]).toEqual(['c', '_GET_stream', 'd', 'e', 'f', 'g', 'h'])
  })

  it('leaves an entry a cleanup replaced, and reads the web-standard transport inside a wrapper', () => {
    const t = shaped([])
    const replacement = entry()
    const replaced = {
      resolveJson: () => {},
      cleanup: () => t._streamMapping.set('a', replacement),
    }
    t._streamMapping.set('a', replaced)
    expect(releaseFinishedJsonResponses({ _webStandardTransport: t })).toBe(1)
    expect(t._streamMapping.get('a')).toBe(replacement)
  })

  it('releases nothing in SSE mode or with no streams', () => {
    const kept = entry()
    expect(releaseFinishedJsonResponses(shaped([['a', kept]], [], false))).toBe(0)
    expect(kept.cleanup).not.toHaveBeenCalled()
    expect(releaseFinishedJsonResponses(shaped([]))).toBe(0)
    expect(releaseFinishedJsonResponses(null)).toBe(0)
    expect(releaseFinishedJsonResponses({ _webStandardTransport: null, ...shaped([]) })).toBe(0)
  })

  it('needs every field of the shape', () => {
    const base = shaped([['a', entry()]])
    for (const broken of [
      { ...base, _enableJsonResponse: 'yes' },
      { ...base, _standaloneSseStreamId: 1 },
      { ...base, _streamMapping: {} },
      { ...base, _requestToStreamMapping: [] },
    ]) {
      expect(releaseFinishedJsonResponses(broken)).toBe(0)
    }
    expect(releaseFinishedJsonResponses(base)).toBe(1)
  })
})

describe('releaseFinishedJsonResponses on a transport without the 1.32.x shape', () => {
  // `warned` is per process: each case loads the module afresh so its first warning is seen.
  async function fresh() {
    vi.resetModules()
    return await import('../src/sdk-json-retention.js')
  }
  async function warningsOf(run: () => void): Promise<(string | undefined)[]> {
    const codes: (string | undefined)[] = []
    const onWarning = (w: Error & { code?: string }) => codes.push(w.code)
    process.on('warning', onWarning)
    try {
      run()
      // process.emitWarning emits on a later tick.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    return codes
  }

  it('warns for nothing that is not named like an SDK transport, a null-prototype object included', async () => {
    const { releaseFinishedJsonResponses: release } = await fresh()
    class Other {}
    const codes = await warningsOf(() => {
      for (const t of [
        { handleRequest: async () => {} },
        Object.create(null),
        { constructor: { name: 7 } },
        new Other(),
        { _webStandardTransport: new Other() },
      ]) {
        expect(release(t)).toBe(0)
      }
    })
    expect(codes).toEqual([])
  })

  it('warns once with TOLLGATE_SDK_SHAPE for either SDK class name, wrapped or not', async () => {
    class WebStandardStreamableHTTPServerTransport {}
    class StreamableHTTPServerTransport {}
    const web = await fresh()
    expect(
      await warningsOf(() => {
        expect(
          web.releaseFinishedJsonResponses(new WebStandardStreamableHTTPServerTransport()),
        ).toBe(0)
        expect(web.releaseFinishedJsonResponses(new StreamableHTTPServerTransport())).toBe(0)
      }),
    ).toEqual(['TOLLGATE_SDK_SHAPE'])
    const outer = await fresh()
    expect(
      await warningsOf(() => {
        expect(outer.releaseFinishedJsonResponses(new StreamableHTTPServerTransport())).toBe(0)
      }),
    ).toEqual(['TOLLGATE_SDK_SHAPE'])
    const inner = await fresh()
    expect(
      await warningsOf(() => {
        const wrapper = { _webStandardTransport: new WebStandardStreamableHTTPServerTransport() }
        expect(inner.releaseFinishedJsonResponses(wrapper)).toBe(0)
      }),
    ).toEqual(['TOLLGATE_SDK_SHAPE'])
    // Every field but one of the shape: `_enableJsonResponse` not a boolean is not 1.32.x.
    const almost = await fresh()
    const shaped = Object.assign(new WebStandardStreamableHTTPServerTransport(), {
      _enableJsonResponse: 'yes',
      _standaloneSseStreamId: '_GET_stream',
      _streamMapping: new Map(),
      _requestToStreamMapping: new Map(),
    })
    expect(
      await warningsOf(() => {
        expect(almost.releaseFinishedJsonResponses(shaped)).toBe(0)
      }),
    ).toEqual(['TOLLGATE_SDK_SHAPE'])
  })
})
