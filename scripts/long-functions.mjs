// Lists the functions in src/ longer than ~100 lines (tests included), from the TypeScript AST (swc, a
// dev dependency): each must be split by step or say why it is long in the comment just above it
// ("Long because: ..."). `node scripts/long-functions.mjs` prints them; `--strict` exits 1 when one has
// no reason. Nested functions count on their own, and inside their parent's lines.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const ROOT = path.resolve(import.meta.dirname, '..');
const LIMIT = Number(process.env.LONG_FUNCTION_LINES ?? 100);
const swc = createRequire(path.join(ROOT, 'package.json'))('@swc/core');

function files(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const FUNCTION_KINDS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'PrivateMethod',
  'MethodProperty',
  'Constructor',
]);
const long = [];
for (const file of files(path.join(ROOT, 'src'))) {
  const text = fs.readFileSync(file, 'utf8');
  const buf = Buffer.from(text, 'utf8');
  // A leading statement pins the module's first byte (swc's spans run on across parses and skip leading comments).
  const ast = swc.parseSync(`0;\n${text}`, { syntax: 'typescript' });
  const base = ast.span.start + 3;
  const starts = [0];
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) starts.push(i + 1);
  const lineOf = (off) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= off) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const lines = text.split('\n');
  const visit = (node, name) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((n) => visit(n, name));
    let here = name;
    if (node.type === 'FunctionDeclaration') here = node.identifier?.value;
    else if (node.type === 'VariableDeclarator' && node.id?.type === 'Identifier') here = node.id.value;
    else if (node.key && (node.type === 'ClassMethod' || node.type === 'PrivateMethod' || node.type === 'MethodProperty' || node.type === 'KeyValueProperty'))
      here = node.key.value ?? node.key.id?.value ?? name;
    if (FUNCTION_KINDS.has(node.type) && node.span) {
      const first = lineOf(node.span.start - base);
      const last = lineOf(node.span.end - base - 1);
      if (last - first + 1 > LIMIT) {
        // The comment just above the declaration (up to the first blank or code line).
        let i = first - 2;
        const above = [];
        while (i >= 0 && /^\s*(\/\/|\/\*|\*)/.test(lines[i])) above.unshift(lines[i--]);
        const reason = /Long because:/.test(above.join('\n') + lines[first - 1]);
        long.push({ file: path.relative(ROOT, file), line: first, name: here ?? '(anonymous)', lines: last - first + 1, reason });
      }
    }
    for (const k of Object.keys(node)) if (k !== 'span' && node[k] && typeof node[k] === 'object') visit(node[k], here);
  };
  visit(ast.body, undefined);
}
long.sort((a, b) => b.lines - a.lines);
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.reason ? 'reason ' : 'NO REASON'}  ${f.file}:${f.line}  ${f.name}`);
const bare = long.filter((f) => !f.reason);
console.log(`${long.length} functions over ${LIMIT} lines in src/, ${bare.length} without a "Long because:" reason`);
if (process.argv.includes('--strict') && bare.length) process.exit(1);
