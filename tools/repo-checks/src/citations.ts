/**
 * What a document cites: tests (a test file and the exact name of one test in it) and file
 * paths. The grammar is documented in docs/evidence.md; in short a test citation is
 *
 *     `<test file path>` › `<exact test name>`
 *
 * two code spans separated by `›` (U+203A). Several names may follow one path:
 * `` `test/a.test.ts` › `first` › `second` `` cites two tests of one file. A name holding a
 * backtick is written in a double-backtick span (``` `` name with ` inside `` ```).
 */

/** One cited test: the path as written and the test's exact name. */
export interface TestCitation {
  readonly line: number
  readonly path: string
  readonly name: string
}

/** One cited file path (a code span or a relative link target that names a file in the tree). */
export interface PathCitation {
  readonly line: number
  readonly path: string
}

/** A test file path followed by something that is almost, but not, the `›` separator. */
export interface MalformedCitation {
  readonly line: number
  readonly text: string
}

export interface DocumentCitations {
  readonly tests: readonly TestCitation[]
  readonly paths: readonly PathCitation[]
  readonly malformed: readonly MalformedCitation[]
}

interface Span {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** A test file: `*.test.ts` (and `.mts`/`.js`/`.mjs`), `*.property.test.ts` included. */
export const TEST_FILE = /\.test\.(?:ts|mts|js|mjs)$/

// Top-level folders of this repository: a path starting with one is repository-relative.
export const REPO_ROOTS = [
  'packages/',
  'apps/',
  'tools/',
  'jobs/',
  'bench/',
  'schemas/',
  'scripts/',
  'docs/',
  '.ci/',
  '.changeset/',
]

// Generated or external trees a document may name without them existing in a checkout.
const GENERATED = /(^|\/)(dist|node_modules|coverage|reports|\.stryker-tmp|\.cache|\.turbo)(\/|$)/

const MCP_METHOD =
  /^(?:tools\/(?:call|list)|resources\/(?:list|read|subscribe|unsubscribe|templates\/list)|prompts\/(?:list|get)|notifications\/[\w/]+|completion\/complete|logging\/setLevel|sampling\/createMessage|roots\/list|elicitation\/create)$/

/** Code spans of one line of Markdown (backtick runs of equal length), with positions. */
export function codeSpans(line: string): Span[] {
  const spans: Span[] = []
  let i = 0
  while (i < line.length) {
    if (line[i] !== '`') {
      i++
      continue
    }
    let run = 0
    while (line[i + run] === '`') run++
    const fence = '`'.repeat(run)
    let search = i + run
    let close = -1
    while (search < line.length) {
      const at = line.indexOf(fence, search)
      if (at < 0) break
      let after = at + run
      if (line[after] === '`') {
        while (line[after] === '`') after++
        search = after
        continue
      }
      close = at
      break
    }
    if (close < 0) {
      i += run
      continue
    }
    let text = line.slice(i + run, close)
    // CommonMark: one leading and one trailing space are stripped when both are present.
    if (text.length >= 2 && text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '') {
      text = text.slice(1, -1)
    }
    // Inside a table cell a pipe is written `\|`.
    spans.push({ start: i, end: close + run, text: text.replace(/\\\|/g, '|') })
    i = close + run
  }
  return spans
}

/** True when `text` is written as a file path: no spaces, no scheme, a known root or an extension. */
export function looksLikePath(text: string): boolean {
  if (text === '' || /\s/.test(text) || /[<>*{}[\]()|?"'`,;=$@#]/.test(text)) return false
  if (text.includes('://') || text.startsWith('node:') || text.startsWith('/')) return false
  if (text.startsWith('-')) return false
  if (GENERATED.test(text)) return false
  // MCP method names (`tools/call`, `notifications/initialized`) are not paths.
  if (MCP_METHOD.test(text)) return false
  if (REPO_ROOTS.some((root) => text.startsWith(root))) return true
  if (text.startsWith('./') || text.startsWith('../')) return true
  // `src/x.ts`, `test/y.test.ts`: a slash and a file extension. A bare `x.ts` is too ambiguous.
  return text.includes('/') && /\.[A-Za-z0-9]{1,6}$/.test(text) && !text.startsWith('.')
}

const SEPARATOR = /^\s*›\s*$/
// Separators people reach for instead of `›`: a citation written with one of them would be
// silently unchecked, so it is reported.
const NEAR_SEPARATOR = /^\s*(?:>|»|::|->|→|—|–|:|#)\s*$/

/** Finds every test citation, cited file path and malformed citation in a Markdown document. */
export function findCitations(markdown: string): DocumentCitations {
  const tests: TestCitation[] = []
  const paths: PathCitation[] = []
  const malformed: MalformedCitation[] = []
  const lines = markdown.split(/\r?\n/)
  let fence: string | undefined
  lines.forEach((line, index) => {
    const lineNo = index + 1
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? ''
      if (fence === undefined) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return
    }
    if (fence !== undefined) return
    const spans = codeSpans(line)
    const named = new Set<number>()
    for (let s = 0; s < spans.length; s++) {
      const span = spans[s]!
      if (named.has(s)) continue
      const path = span.text.trim()
      if (!looksLikePath(path)) continue
      paths.push({ line: lineNo, path })
      if (!TEST_FILE.test(path)) continue
      // Follow `› name` links after the path.
      let prev = span
      for (let n = s + 1; n < spans.length; n++) {
        const next = spans[n]!
        const between = line.slice(prev.end, next.start)
        if (SEPARATOR.test(between)) {
          tests.push({ line: lineNo, path, name: next.text })
          named.add(n)
          prev = next
          continue
        }
        if (prev === span && NEAR_SEPARATOR.test(between) && !looksLikePath(next.text.trim())) {
          malformed.push({ line: lineNo, text: line.slice(span.start, next.end) })
        }
        break
      }
    }
    // Relative Markdown link targets: [text](path) and [text](path#anchor). Not inside a code
    // span, where CommonMark reads no link (a quoted regex such as `[0-9](?:…)` is not one).
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const at = match.index ?? 0
      if (spans.some((span) => at >= span.start && at < span.end)) continue
      const target = (match[1] ?? '').split('#')[0] ?? ''
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue
      if (GENERATED.test(target)) continue
      paths.push({ line: lineNo, path: decodeURI(target) })
    }
  })
  return { tests, paths, malformed }
}
