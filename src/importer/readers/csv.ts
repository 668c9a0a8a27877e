// RFC 4180 CSV: quoted fields may hold delimiters, doubled quotes and line breaks (Chicago's summary
// table has LFs inside quotes); CRLF or LF record ends; a leading BOM is dropped (Cambridge's address table).
//
// A malformed record is rejected alone, named by its physical line, and reading resumes on the next
// physical line: an unterminated quote must not swallow the records after it. A record is malformed
// when text follows a closing quote, when the file ends inside quotes, or when a record that spans
// several physical lines (a quoted line break) has the wrong number of fields.

export interface CsvRecord {
  fields: string[];
  /** 1-based physical line the record starts on. */
  line: number;
  /** Physical lines the record covers (more than 1 when a quoted field holds line breaks). */
  lines: number;
  /** Set when the record is malformed; `fields` is then empty. */
  malformed?: string;
}

/**
 * Records with their physical line numbers. `expectedFields` (when known, e.g. from the header) lets a
 * multi-line record with the wrong field count be treated as a stray quote rather than swallowing lines.
 */
function* csvRecords(text: string, delimiter = ',', expectedFields: () => number | undefined = () => undefined): Generator<CsvRecord> {
  const n = text.length;
  const d = delimiter.charCodeAt(0);
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (pos < n) {
    const startPos = pos;
    const startLine = line;
    const row: string[] = [];
    let field = '';
    let quoted = false;
    let sawAny = false;
    let i = pos;
    let curLine = startLine;
    let malformed: string | undefined;
    let ended = false;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (quoted) {
        if (c === 34) {
          if (text.charCodeAt(i + 1) === 34) {
            field += '"';
            i += 2;
            continue;
          }
          quoted = false;
          i++;
          const next = text.charCodeAt(i);
          if (i < n && next !== d && next !== 10 && next !== 13) {
            malformed = 'text after a closing quote (a stray or unterminated quote)';
            break;
          }
          continue;
        }
        let j = i;
        while (j < n && text.charCodeAt(j) !== 34) {
          if (text.charCodeAt(j) === 10) curLine++;
          j++;
        }
        field += text.slice(i, j);
        i = j;
        continue;
      }
      if (c === 34 && field === '') {
        quoted = true;
        sawAny = true;
        i++;
      } else if (c === d) {
        row.push(field);
        field = '';
        sawAny = true;
        i++;
      } else if (c === 10 || c === 13) {
        if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
        i++;
        ended = true;
        break;
      } else {
        let j = i;
        while (j < n) {
          const k = text.charCodeAt(j);
          if (k === d || k === 10 || k === 13) break;
          j++;
        }
        field += text.slice(i, j);
        sawAny = true;
        i = j;
      }
    }
    if (!malformed && quoted) malformed = 'the quoted field is never closed (unterminated quote)';
    if (!malformed && (sawAny || field !== '')) row.push(field);
    const expected = expectedFields();
    if (!malformed && curLine > startLine && expected !== undefined && row.length !== expected) {
      malformed = `a quoted field runs over ${curLine - startLine + 1} lines and the record has ${row.length} fields, expected ${expected} (a stray or unterminated quote)`;
    }
    if (malformed) {
      // Reject the starting physical line alone and resume on the next one.
      let eol = text.indexOf('\n', startPos);
      if (eol < 0) eol = n - 1;
      yield { fields: [], line: startLine, lines: 1, malformed };
      pos = eol + 1;
      line = startLine + 1;
      continue;
    }
    if (sawAny || row.length > 0) yield { fields: row, line: startLine, lines: curLine - startLine + 1 };
    pos = i;
    line = curLine + (ended ? 1 : 0);
  }
}

/** Splits CSV text into records of raw string fields. Blank lines are skipped; a malformed record throws, naming its line. */
export function* parseCsvRecords(text: string, delimiter = ','): Generator<string[]> {
  for (const r of csvRecords(text, delimiter)) {
    if (r.malformed) throw new Error(`CSV line ${r.line}: ${r.malformed}${/never closed/.test(r.malformed) ? ' (CSV ends inside a quoted field)' : ''}`);
    yield r.fields;
  }
}

/** Physical lines in the text (a final line without a newline counts). */
export function countPhysicalLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}

export interface CsvOptions {
  header: boolean;
  columns?: string[] | undefined;
  delimiter?: string;
  /** Named in problems (`addresses.csv line 17: ...`). */
  file?: string;
}

export interface CsvRow {
  /** 1-based record number in the file (the header is record 1 when present). */
  recordNo: number;
  /** 1-based physical line the record starts on. */
  line: number;
  values: Record<string, string>;
  /** Set when the record cannot be loaded: a malformed record, the wrong field count, a NUL byte. */
  problem?: string;
  /** The problem's kind, used as the import report's reject reason. */
  problemReason?: 'malformed CSV record' | 'wrong number of fields' | 'NUL byte in a field';
}

/** Records as objects keyed by the header (or by the given column names when the file has none). */
export function* readCsvRows(text: string, opts: CsvOptions): Generator<CsvRow> {
  let columns = opts.columns;
  const records = csvRecords(text, opts.delimiter ?? ',', () => columns?.length);
  const where = (line: number) => `${opts.file ? `${opts.file} ` : ''}line ${line}`;
  let recordNo = 0;
  if (opts.header) {
    const first = records.next();
    recordNo++;
    if (first.done) return;
    if (first.value.malformed) throw new Error(`${where(first.value.line)}: the header is malformed: ${first.value.malformed}`);
    columns ??= first.value.fields.map((h) => h.trim());
  }
  for (const rec of records) {
    recordNo++;
    // No header and no names given: the columns are numbered from 1 ("1", "2", ...) by the first record.
    if (!columns && !rec.malformed) columns = rec.fields.map((_, k) => String(k + 1));
    if (rec.malformed) {
      yield { recordNo, line: rec.line, values: {}, problem: `${where(rec.line)}: ${rec.malformed}`, problemReason: 'malformed CSV record' };
      continue;
    }
    if (rec.fields.every((v) => v.trim() === '')) continue; // e.g. Cambridge's trailing ",," row
    if (!columns) {
      yield { recordNo, line: rec.line, values: {}, problem: `${where(rec.line)}: no column names yet`, problemReason: 'malformed CSV record' };
      continue;
    }
    const values: Record<string, string> = {};
    columns.forEach((c, k) => {
      values[c] = rec.fields[k] ?? '';
    });
    const row: CsvRow = { recordNo, line: rec.line, values };
    const nul = rec.fields.findIndex((v) => v.includes('\u0000'));
    if (nul >= 0) {
      row.problem = `${where(rec.line)}: field ${columns[nul] ?? nul + 1} holds a NUL byte`;
      row.problemReason = 'NUL byte in a field';
    } else if (rec.fields.length !== columns.length) {
      row.problem = `${where(rec.line)}: has ${rec.fields.length} fields, expected ${columns.length}`;
      row.problemReason = 'wrong number of fields';
    }
    yield row;
  }
}

/**
 * A CSV cut short: its text stops without a line end inside a record that has fewer fields than the
 * header, or inside a quoted field. (A file whose last line has no line end but is whole is not cut.)
 */
export function csvTruncation(text: string, rows: CsvRow[], file: string): string | null {
  if (text === '' || /[\r\n]$/.test(text)) return null;
  const last = rows[rows.length - 1];
  if (!last?.problem) return null;
  if (last.problemReason === 'wrong number of fields' || last.problemReason === 'malformed CSV record') {
    return `${file}: truncated: the file ends mid-record at line ${last.line} (${last.problem.replace(/^.*?line \d+: /, '')}, and no line end)`;
  }
  return null;
}
