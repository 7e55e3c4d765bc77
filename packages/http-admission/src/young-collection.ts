import { getHeapSpaceStatistics } from 'node:v8'

/** 64 KiB arrays (8,192 slots): small enough for the new space, never the large-object space. */
const SLOTS = 8192

// Where the last filler array goes, so the allocation loop is not optimized away.
const sink: unknown[] = [undefined]

/**
 * Has V8 run a young-generation collection now, by filling what is left of the new space with
 * short-lived arrays. Past the body store's spill point each socket chunk is copied and dead at
 * once, but the read itself allocates almost nothing on the JavaScript heap, so V8 may collect
 * none of them during a 64 MiB read: every chunk then stays resident until the decode, and the
 * malloc'd memory of chunks freed only after the read is not reused by anything. Measured on
 * one 64 MiB ASCII body (bench/http-admission.bench.mjs's child, Node 20.20.2): 64 MiB of dead
 * chunks at the decode, a peak of chunks + bytes + text = 3.0 times the wire bytes. Collected
 * every few MiB, the freed chunks' memory is reused for the next ones. The cost is one new
 * space's worth of allocation (well under 1 MiB to a few MiB; about 0.1–0.3 ms), paid only by
 * a body past the spill point.
 */
export function collectDeadChunks(): void {
  let room = 0
  try {
    for (const space of getHeapSpaceStatistics()) {
      if (space.space_name === 'new_space') room = space.space_available_size
    }
  } catch {
    return
  }
  for (let filled = 0; filled <= room; filled += SLOTS * 8) sink[0] = new Array(SLOTS).fill(0)
  sink[0] = undefined
}
