// The 2025-era protocol versions, in a file of their own that imports nothing, so the era
// control and the HTTP options can both read them whichever module loads first.

/**
 * The protocol versions `@modelcontextprotocol/sdk` 1.32.2 supports (its
 * `SUPPORTED_PROTOCOL_VERSIONS`, newest first), copied so that importing this package does not
 * load the SDK; a test holds the two equal.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
])
