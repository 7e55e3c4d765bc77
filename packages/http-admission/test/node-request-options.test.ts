// admitNodeRequest's control: a bad option fails where the control is built, at start-up; a
// call handed something that is not a control is a rejection of the promise it returns (the
// caller awaits it), never a throw out of the call nor a promise that never settles.
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { admitNodeRequest, type BodyAdmissionOptions, bodyAdmission } from '../src/index.js'

describe('admitNodeRequest', () => {
  it('throws a TypeError naming the option where the control is built, and rejects a call without a control, without throwing', async () => {
    expect(() => bodyAdmission({ maxBytes: -1 } as BodyAdmissionOptions)).toThrow(/maxBytes/)
    const req = new IncomingMessage(new Socket())
    let pending: Promise<unknown> | undefined
    expect(() => {
      pending = admitNodeRequest(req, { maxBytes: -1 } as never)
    }).not.toThrow()
    await expect(pending).rejects.toThrow(TypeError)
  })
})
