/** One table of a Markdown document: its header cells and its body rows, each a list of cells. */
export interface MarkdownTable {
  readonly header: readonly string[]
  readonly rows: readonly (readonly string[])[]
  /** 1-based line of the header row, for failure messages. */
  readonly line: number
}

// A GFM table is a header row, a delimiter row (`| --- | :-: |`) and body rows until the first
// line that is not a row. `\|` is a literal pipe inside a cell.
const DELIMITER = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/

/** Splits one table row into trimmed cells, honouring `\|` escapes. */
export function splitRow(line: string): string[] {
  let body = line.trim()
  if (body.startsWith('|')) body = body.slice(1)
  if (body.endsWith('|') && !body.endsWith('\\|')) body = body.slice(0, -1)
  const cells: string[] = []
  let current = ''
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]
    if (ch === '\\' && body[i + 1] === '|') {
      current += '|'
      i++
    } else if (ch === '|') {
      cells.push(current.trim())
      current = ''
    } else {
      current += ch
    }
  }
  cells.push(current.trim())
  return cells
}

/** Every GFM table in `markdown`, in document order. */
export function parseTables(markdown: string): MarkdownTable[] {
  const lines = markdown.split(/\r?\n/)
  const tables: MarkdownTable[] = []
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = lines[i] ?? ''
    const delimiter = lines[i + 1] ?? ''
    if (!head.includes('|') || !DELIMITER.test(delimiter)) continue
    const header = splitRow(head)
    const rows: string[][] = []
    let j = i + 2
    for (; j < lines.length; j++) {
      const row = lines[j] ?? ''
      if (!row.trim().startsWith('|')) break
      rows.push(splitRow(row))
    }
    tables.push({ header, rows, line: i + 1 })
    i = j - 1
  }
  return tables
}

/** The text of a cell with one layer of surrounding backticks removed. */
export function unquote(cell: string): string {
  const match = /^`([^`]*)`$/.exec(cell.trim())
  return match ? (match[1] ?? '') : cell.trim()
}

/** One body row of a table, keyed by its header's cell text (backticks removed). */
export type TableRow = Readonly<Record<string, string>>

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/
const FENCE = /^\s*(`{3,}|~{3,})/

function plain(text: string): string {
  return text.replace(/`/g, '').trim()
}

/**
 * The first table in the section under the heading `heading` (any level, compared without
 * backticks: `` ## `json()` `` is `'json()'`), the section ending at the next heading of the
 * same or a higher level. Each body row is a record keyed by the header cells without their
 * backticks; the values are the cells as written (trimmed, `\|` read as `|`; `unquote` strips a
 * code span). Throws when no heading or more than one has that text, or its section holds no
 * table: a README test that reads nothing would pass vacuously.
 */
export function tableUnder(markdown: string, heading: string): TableRow[] {
  const lines = markdown.split(/\r?\n/)
  const found: { index: number; level: number }[] = []
  const levels: (number | undefined)[] = []
  let fence: string | undefined
  lines.forEach((line, index) => {
    const marker = FENCE.exec(line)?.[1]
    if (marker !== undefined) {
      if (fence === undefined) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
    }
    const match = fence === undefined ? HEADING.exec(line) : null
    levels.push(match ? (match[1] ?? '').length : undefined)
    if (match && plain(match[2] ?? '') === plain(heading)) {
      found.push({ index, level: (match[1] ?? '').length })
    }
  })
  if (found.length !== 1) {
    throw new Error(`expected one heading "${heading}", found ${found.length}`)
  }
  const { index: start, level } = found[0]!
  let end = lines.length
  for (let i = start + 1; i < lines.length; i++) {
    const at = levels[i]
    if (at !== undefined && at <= level) {
      end = i
      break
    }
  }
  const table = parseTables(lines.slice(start + 1, end).join('\n'))[0]
  if (table === undefined) throw new Error(`no table under the heading "${heading}"`)
  const keys = table.header.map(plain)
  return table.rows.map((cells) => Object.fromEntries(keys.map((key, i) => [key, cells[i] ?? ''])))
}
