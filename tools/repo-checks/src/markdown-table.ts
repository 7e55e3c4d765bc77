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
