import type { AddressInfo } from 'node:net'
import { createApp } from './app.js'

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'

const server = createApp().listen(port, host, () => {
  const { port: bound } = server.address() as AddressInfo
  console.log(`notes API on http://${host}:${bound}`)
})
