import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'

const json = { 'content-type': 'application/json' }

describe('createApp', () => {
  it('creates, gets and searches notes, answering tags as an array', async () => {
    const app = createApp()
    const created = await request(app)
      .post('/notes')
      .set(json)
      .send({ title: 'Groceries', body: 'milk', tags: ['home', 'home', 'list'] })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      id: '1',
      title: 'Groceries',
      body: 'milk',
      tags: ['home', 'list'],
    })
    const got = await request(app).get('/notes/1')
    expect(got.body).toMatchObject({ id: '1', title: 'Groceries' })
    const found = await request(app).get('/notes').query({ q: 'grocer' })
    expect(found.body.notes).toHaveLength(1)
    const retagged = await request(app)
      .put('/notes/1/tags')
      .set(json)
      .send({ tags: ['done'] })
    expect(retagged.body.tags).toEqual(['done'])
  })

  it('answers 413 on the tags route past its 1 KiB cap and stores nothing', async () => {
    const app = createApp()
    await request(app).post('/notes').set(json).send({ title: 'a' })
    const response = await request(app)
      .put('/notes/1/tags')
      .set(json)
      .send({ tags: Array.from({ length: 200 }, (_, i) => `tag-${i}`) })
    expect(response.status).toBe(413)
    expect(JSON.parse(response.text)).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 1024 })
    expect((await request(app).get('/notes/1')).body.tags).toEqual([])
  })

  it('answers 422 to a body nested 65 deep and creates no note', async () => {
    const app = createApp()
    const response = await request(app)
      .post('/notes')
      .set(json)
      .send(`{"title":${'['.repeat(65)}${']'.repeat(65)}}`)
    expect(response.status).toBe(422)
    expect(JSON.parse(response.text)).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', limit: 64 })
    expect((await request(app).get('/notes')).body.notes).toEqual([])
  })

  it('answers its own errors as JSON', async () => {
    const app = createApp()
    expect((await request(app).get('/notes/99')).body).toEqual({ error: 'not_found' })
    const invalid = await request(app).post('/notes').set(json).send({ title: 5 })
    expect(invalid.status).toBe(400)
    expect(invalid.body).toEqual({ error: 'invalid_title' })
    const unsupported = await request(app)
      .post('/notes')
      .set('content-type', 'text/plain')
      .send('hi')
    expect(unsupported.status).toBe(415)
  })
})
