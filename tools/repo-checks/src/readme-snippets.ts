/**
 * The TypeScript and JavaScript usage blocks of a Markdown document, and which of them are
 * complete programs. The convention (docs/evidence.md): a block whose first line is a comment
 * starting `// fragment:` is a fragment (it says what it needs); every other ```ts / ```js block
 * is a complete program that runs as is against the built packages.
 */

/** One fenced code block of a document. */
export interface Snippet {
  /** 1-based line of the opening fence. */
  readonly line: number
  /** The fence's info word, lower-cased (`ts`, `js`, ...). */
  readonly lang: string
  /** The block's text, without the fences. */
  readonly code: string
  /** Marked `// fragment:` on its first line. */
  readonly fragment: boolean
}

/** Info words of the blocks the check runs. */
export const PROGRAM_LANGS: ReadonlySet<string> = new Set([
  'ts',
  'typescript',
  'mts',
  'js',
  'javascript',
  'mjs',
])

/** The marker a fragment's first line starts with. */
export const FRAGMENT_MARKER = /^\s*\/\/\s*fragment:/

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/

/** Every fenced block of `markdown` whose info word is in {@link PROGRAM_LANGS}. */
export function extractSnippets(markdown: string): Snippet[] {
  const lines = markdown.split(/\r?\n/)
  const snippets: Snippet[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '')
    if (open === null) continue
    const fence = open[2] ?? '```'
    const lang = (open[3] ?? '').toLowerCase()
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const line = lines[j] ?? ''
      if (
        line.trimStart().startsWith(fence[0]!.repeat(fence.length)) &&
        line.trim().replaceAll(fence[0]!, '') === ''
      )
        break
      body.push(line)
    }
    if (PROGRAM_LANGS.has(lang)) {
      const first = body.find((l) => l.trim() !== '') ?? ''
      snippets.push({
        line: i + 1,
        lang,
        code: body.join('\n'),
        fragment: FRAGMENT_MARKER.test(first),
      })
    }
    i = j
  }
  return snippets
}
