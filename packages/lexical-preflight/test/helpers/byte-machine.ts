// Helper reaching into private state: the scanner with its whole-token fast path switched off.
// `PreflightScanner` takes the fast path only while no key tracker is set (the key policies need
// every key's bytes, so they run every token through the byte machine). A tracker that tracks
// nothing switches the fast path off and changes no verdict: the same class, the same tables and
// the same refusal code, with every token read one byte at a time by the machine the fast path
// hands over to. It is the oracle the fast path is judged by in scanner.differential.test.ts.
import { KeyTracker } from '../../src/key-policy.js'
import type { ResolvedPreflightOptions } from '../../src/options.js'
import { PreflightScanner } from '../../src/scanner.js'

/** A `PreflightScanner` that runs every byte through its byte machine (no fast path). */
export function byteMachineScanner(options: ResolvedPreflightOptions): PreflightScanner {
  const scanner = new PreflightScanner(options)
  const state = scanner as unknown as { keys: KeyTracker | null }
  // A key policy already switches the fast path off; its tracker stays.
  if (state.keys === null) state.keys = new KeyTracker(false, false)
  return scanner
}

/** Whether `scanner` takes the fast path (no key tracker set). */
export function takesFastPath(scanner: PreflightScanner): boolean {
  return (scanner as unknown as { keys: KeyTracker | null }).keys === null
}
