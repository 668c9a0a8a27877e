// Text files as towns publish them: UTF-8 with or without a BOM, UTF-16 with a BOM, or a Western
// single-byte code page (Latin-1 / Windows-1252, what Excel and older GIS exports write).
/** The encoding a file's bytes are in: a BOM decides; else UTF-8 when the bytes are valid UTF-8; else windows-1252. */
export function detectEncoding(buf: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return 'utf-8';
  if (buf[0] === 0xff && buf[1] === 0xfe) return 'utf-16le';
  if (buf[0] === 0xfe && buf[1] === 0xff) return 'utf-16be';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

/** Decodes with the named encoding (`auto`: detectEncoding); a leading BOM is dropped. */
export function decodeText(buf: Uint8Array, encoding: string): string {
  const enc = encoding === 'auto' ? detectEncoding(buf) : encoding;
  const text = new TextDecoder(enc).decode(buf);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
