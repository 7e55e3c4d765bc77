// Preloaded into an app under load (`--import jobs/load/probe.mjs`, with `--expose-gc`):
// on an IPC message it runs two full garbage collections and answers the process's memory and
// its active handles and requests by type, so a script can check that nothing leaked.
if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (typeof message?.probe !== 'number') return
    globalThis.gc?.()
    globalThis.gc?.()
    const memory = process.memoryUsage()
    const resources = {}
    for (const type of process.getActiveResourcesInfo())
      resources[type] = (resources[type] ?? 0) + 1
    process.send({
      probe: message.probe,
      result: {
        rssMiB: memory.rss / 2 ** 20,
        heapUsedMiB: memory.heapUsed / 2 ** 20,
        externalMiB: memory.external / 2 ** 20,
        arrayBuffersMiB: memory.arrayBuffers / 2 ** 20,
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
        resources,
      },
    })
  })
  // The IPC channel must not keep the app alive on its own.
  process.channel?.unref()
}
