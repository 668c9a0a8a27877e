// RFC 4180 CSV: quoted fields may hold delimiters, doubled quotes and line breaks (Chicago's summary
// table has LFs inside quotes); CRLF or LF record ends; a leading BOM is dropped (Cambridge's address table).

/** Splits CSV text into records of raw string fields. Blank lines are skipped. */
export function* parseCsvRecords(text: string, delimiter = ','): Generator<string[]> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  const d = delimiter.charCodeAt(0);
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let sawAny = false; // the current record has content (so a lone empty line is not a record)
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
        continue;
      }
      // Copy a run of ordinary characters at once.
      let j = i;
      while (j < n && text.charCodeAt(j) !== 34) j++;
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
      if (sawAny || field !== '') {
        row.push(field);
        yield row;
      }
      row = [];
      field = '';
      sawAny = false;
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
  if (quoted) throw new Error('CSV ends inside a quoted field');
  if (sawAny || field !== '') {
    row.push(field);
    yield row;
  }
}

export interface CsvOptions {
  header: boolean;
  columns?: string[] | undefined;
  delimiter?: string;
}

export interface CsvRow {
  /** 1-based record number in the file (the header is record 1 when present). */
  recordNo: number;
  values: Record<string, string>;
  /** Set when the record's field count differs from the header's. */
  problem?: string;
}

/** Records as objects keyed by the header (or by the given column names when the file has none). */
export function* readCsvRows(text: string, opts: CsvOptions): Generator<CsvRow> {
  const records = parseCsvRecords(text, opts.delimiter ?? ',');
  let columns = opts.columns;
  let recordNo = 0;
  if (opts.header) {
    const first = records.next();
    recordNo++;
    if (first.done) return;
    columns ??= first.value.map((h) => h.trim());
  }
  if (!columns) throw new Error('a CSV without a header needs column names');
  for (const rec of records) {
    recordNo++;
    if (rec.every((v) => v.trim() === '')) continue; // e.g. Cambridge's trailing ",," row
    const values: Record<string, string> = {};
    columns.forEach((c, k) => {
      values[c] = rec[k] ?? '';
    });
    const row: CsvRow = { recordNo, values };
    if (rec.length !== columns.length) row.problem = `has ${rec.length} fields, expected ${columns.length}`;
    yield row;
  }
}
