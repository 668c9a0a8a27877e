// Writes a polygon shapefile (.shp, .shx, .dbf, .prj) as a town's GIS exports it: dBASE column names cut
// to 10 characters, text columns space-padded. Just enough of the format for tests (ESRI Shapefile
// Technical Description, 1998; dBASE III): polygons of one ring each, character and numeric columns.
import fs from 'node:fs';

type Ring = [number, number][];

export interface ShapefileRecord {
  ring: Ring;
  /** Column -> value (strings for C columns, numbers for N). */
  props: Record<string, string | number>;
}

/** Writes base.shp / .shx / .dbf / .prj; `columns` names the .dbf columns in order (cut to 10 characters, as a .dbf does). */
export function writePolygonShapefile(base: string, records: ShapefileRecord[], columns: string[], prjWkt: string): void {
  // A shapefile's outer ring runs clockwise.
  const rings = records.map((r) => (signedArea(r.ring) > 0 ? [...r.ring].reverse() : r.ring));
  const all = rings.flat();
  const bbox = [Math.min(...all.map((p) => p[0])), Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[0])), Math.max(...all.map((p) => p[1]))];
  const contents = rings.map((ring) => {
    const b = Buffer.alloc(44 + 4 + ring.length * 16);
    b.writeInt32LE(5, 0);
    const rb = [Math.min(...ring.map((p) => p[0])), Math.min(...ring.map((p) => p[1])), Math.max(...ring.map((p) => p[0])), Math.max(...ring.map((p) => p[1]))];
    rb.forEach((v, k) => b.writeDoubleLE(v, 4 + k * 8));
    b.writeInt32LE(1, 36); // parts
    b.writeInt32LE(ring.length, 40);
    b.writeInt32LE(0, 44); // the one part starts at point 0
    ring.forEach(([x, y], k) => {
      b.writeDoubleLE(x, 48 + k * 16);
      b.writeDoubleLE(y, 56 + k * 16);
    });
    return b;
  });
  const header = (lengthBytes: number) => {
    const h = Buffer.alloc(100);
    h.writeInt32BE(9994, 0);
    h.writeInt32BE(lengthBytes / 2, 24);
    h.writeInt32LE(1000, 28);
    h.writeInt32LE(5, 32);
    bbox.forEach((v, k) => h.writeDoubleLE(v, 36 + k * 8));
    return h;
  };
  const shpLength = 100 + contents.reduce((n, c) => n + 8 + c.length, 0);
  const shp: Buffer[] = [header(shpLength)];
  const shx: Buffer[] = [header(100 + contents.length * 8)];
  let offset = 100;
  contents.forEach((c, k) => {
    const rh = Buffer.alloc(8);
    rh.writeInt32BE(k + 1, 0);
    rh.writeInt32BE(c.length / 2, 4);
    shp.push(rh, c);
    const ix = Buffer.alloc(8);
    ix.writeInt32BE(offset / 2, 0);
    ix.writeInt32BE(c.length / 2, 4);
    shx.push(ix);
    offset += 8 + c.length;
  });
  fs.writeFileSync(`${base}.shp`, Buffer.concat(shp));
  fs.writeFileSync(`${base}.shx`, Buffer.concat(shx));
  fs.writeFileSync(`${base}.dbf`, dbf(records, columns));
  fs.writeFileSync(`${base}.prj`, prjWkt);
}

function signedArea(ring: Ring): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return a / 2;
}

function dbf(records: ShapefileRecord[], columns: string[]): Buffer {
  const fields = columns.map((c) => {
    const numeric = records.every((r) => typeof r.props[c] === 'number');
    const length = numeric ? 12 : Math.max(1, ...records.map((r) => Buffer.byteLength(String(r.props[c] ?? ''), 'latin1')));
    return { name: c.slice(0, 10), source: c, type: numeric ? 'N' : 'C', length };
  });
  const headerLength = 32 + fields.length * 32 + 1;
  const recordLength = 1 + fields.reduce((n, f) => n + f.length, 0);
  const h = Buffer.alloc(headerLength);
  h[0] = 0x03;
  h[1] = 126;
  h[2] = 1;
  h[3] = 1;
  h.writeUInt32LE(records.length, 4);
  h.writeUInt16LE(headerLength, 8);
  h.writeUInt16LE(recordLength, 10);
  fields.forEach((f, k) => {
    const at = 32 + k * 32;
    h.write(f.name, at, 'latin1');
    h.write(f.type, at + 11, 'latin1');
    h[at + 16] = f.length;
    h[at + 17] = 0;
  });
  h[headerLength - 1] = 0x0d;
  const body = Buffer.alloc(records.length * recordLength + 1, 0x20);
  records.forEach((r, i) => {
    let at = i * recordLength + 1;
    for (const f of fields) {
      const v = String(r.props[f.source] ?? '');
      body.write(f.type === 'N' ? v.padStart(f.length) : v.padEnd(f.length), at, 'latin1');
      at += f.length;
    }
  });
  body[body.length - 1] = 0x1a;
  return Buffer.concat([h, body]);
}
