import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'

const DOC = [
  '# pkg',
  '',
  '```md',
  '## Options',
  '| not | a table of the doc |',
  '| --- | --- |',
  '```',
  '',
  '## Options',
  '',
  'Some prose first.',
  '',
  '### `createThing`',
  '',
  '| `option` | default | meaning |',
  '| -------- | ------- | ------- |',
  '| `maxBytes` | `1024` | a \\| b |',
  '| `mode` | none |',
  '',
  '### other',
  '',
  '| option | default |',
  '| --- | --- |',
  '| `x` | 1 |',
  '',
  '## Error codes',
  '',
  '| code | status |',
  '| --- | --- |',
  '| `ERR_A` | 400 |',
].join('\n')

describe('tableUnder', () => {
  it('reads the first table under a heading as records keyed by header, backticks aside', () => {
    expect(tableUnder(DOC, 'createThing')).toEqual([
      { option: '`maxBytes`', default: '`1024`', meaning: 'a | b' },
      { option: '`mode`', default: 'none', meaning: '' },
    ])
    expect(tableUnder(DOC, '`createThing`').map((row) => unquote(row.option ?? ''))).toEqual([
      'maxBytes',
      'mode',
    ])
  })

  it('reads a section to the next heading of its level, so a parent finds its first sub-table', () => {
    expect(tableUnder(DOC, 'Options')).toHaveLength(2)
    expect(tableUnder(DOC, 'other')).toEqual([{ option: '`x`', default: '1' }])
    expect(tableUnder(DOC, 'Error codes')).toEqual([{ code: '`ERR_A`', status: '400' }])
  })

  it('throws for a missing heading, a heading written twice and a section without a table', () => {
    expect(() => tableUnder(DOC, 'Exports')).toThrow('expected one heading "Exports", found 0')
    expect(() => tableUnder(`${DOC}\n## other\n`, 'other')).toThrow('found 2')
    expect(() => tableUnder('## Options\n\nprose only\n', 'Options')).toThrow('no table')
  })
})
