// Express 4, installed under the alias `express4` next to Express 5, has no types of its own
// here; the tests that load it describe the little they use.
declare module 'express4' {
  const express: { (): unknown; json(): unknown }
  export default express
}
