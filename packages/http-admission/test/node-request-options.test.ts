// admitNodeRequest's options: a bad option is a rejection of the promise it returns (the
// caller awaits it), never a throw out of the call nor a promise that never settles.
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { admitNodeRequest, type HttpAdmissionOptions } from '../src/index.js'

describe('admitNodeRequest', () => {
  it('rejects with a TypeError naming the option for a bad option, without throwing', async () => {
    const req = new IncomingMessage(new Socket())
    let pending: Promise<unknown> | undefined
    expect(() => {
      pending = admitNodeRequest(req, { maxBytes: -1 } as HttpAdmissionOptions)
    }).not.toThrow()
    await expect(pending).rejects.toThrow(/maxBytes/)
  })
})
