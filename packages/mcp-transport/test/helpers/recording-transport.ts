// Test helper: a bare transport that records what it is asked to send, for the in-process tests
// of a decorator (the result budget) that sits on it. `onmessage` is the decorator's hook:
// `inbound` calls it as the SDK's transport would for a message read off the wire.
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages as the wire gives them
type Msg = any

/** The transport, the messages sent through it in order, and a way to feed it one inbound. */
export function recordingTransport() {
  const sent: Msg[] = []
  const inner = {
    start: async () => {},
    close: async () => {},
    send: async (m: Msg) => {
      sent.push(m)
    },
    onmessage: undefined as undefined | ((m: Msg) => void),
  }
  const inbound = (m: Msg) => inner.onmessage?.(m)
  return { inner, sent, inbound }
}
