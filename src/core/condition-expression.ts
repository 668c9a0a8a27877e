// A small evaluator for the condition and value expressions of conditional rules (the OZFS
// expression subset: numbers, 'strings', names, + - * /, comparisons, and/or/not, parentheses).
// Anything else (prose such as "25 for residential streets") does not parse and stays unresolved.

export type ExprValue = number | string | boolean;
export type Vars = Readonly<Record<string, ExprValue | null | undefined>>;

export type EvalResult =
  | { ok: true; value: ExprValue; usedVars: string[] }
  | { ok: false; reason: 'unparseable' | 'unknown_variable' | 'type_error'; detail: string };

type Token = { kind: 'num'; v: number } | { kind: 'str'; v: string } | { kind: 'name'; v: string } | { kind: 'op'; v: string };

const OPS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '(', ')', '!'];

function tokenize(src: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(\d+(\.\d*)?|\.\d+)/.exec(src.slice(i));
    if (num) {
      out.push({ kind: 'num', v: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) return null;
      out.push({ kind: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (name) {
      out.push({ kind: 'name', v: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) return null;
    out.push({ kind: 'op', v: op });
    i += op.length;
  }
  return out;
}

type Node = { t: 'lit'; v: ExprValue } | { t: 'var'; name: string } | { t: 'un'; op: string; a: Node } | { t: 'bin'; op: string; a: Node; b: Node };

class Parser {
  private i = 0;
  constructor(private readonly toks: Token[]) {}
  parse(): Node | null {
    const n = this.or();
    return n && this.i === this.toks.length ? n : null;
  }
  private peek(): Token | undefined {
    return this.toks[this.i];
  }
  private isWord(w: string): boolean {
    const t = this.peek();
    return !!t && t.kind === 'name' && t.v.toLowerCase() === w;
  }
  private isOp(...ops: string[]): string | null {
    const t = this.peek();
    return t && t.kind === 'op' && ops.includes(t.v) ? t.v : null;
  }
  private or(): Node | null {
    let a = this.and();
    while (a && (this.isWord('or') || this.isOp('||'))) {
      this.i++;
      const b = this.and();
      if (!b) return null;
      a = { t: 'bin', op: 'or', a, b };
    }
    return a;
  }
  private and(): Node | null {
    let a = this.not();
    while (a && (this.isWord('and') || this.isOp('&&'))) {
      this.i++;
      const b = this.not();
      if (!b) return null;
      a = { t: 'bin', op: 'and', a, b };
    }
    return a;
  }
  private not(): Node | null {
    if (this.isWord('not') || this.isOp('!')) {
      this.i++;
      const a = this.not();
      return a && { t: 'un', op: 'not', a };
    }
    return this.cmp();
  }
  private cmp(): Node | null {
    const a = this.add();
    const op = a && this.isOp('==', '!=', '<=', '>=', '<', '>');
    if (!a || !op) return a;
    this.i++;
    const b = this.add();
    return b && { t: 'bin', op, a, b };
  }
  private add(): Node | null {
    let a = this.mul();
    let op: string | null;
    while (a && (op = this.isOp('+', '-'))) {
      this.i++;
      const b = this.mul();
      if (!b) return null;
      a = { t: 'bin', op, a, b };
    }
    return a;
  }
  private mul(): Node | null {
    let a = this.unary();
    let op: string | null;
    while (a && (op = this.isOp('*', '/'))) {
      this.i++;
      const b = this.unary();
      if (!b) return null;
      a = { t: 'bin', op, a, b };
    }
    return a;
  }
  private unary(): Node | null {
    if (this.isOp('-')) {
      this.i++;
      const a = this.unary();
      return a && { t: 'un', op: '-', a };
    }
    return this.primary();
  }
  private primary(): Node | null {
    const t = this.peek();
    if (!t) return null;
    if (t.kind === 'op' && t.v === '(') {
      this.i++;
      const n = this.or();
      if (!n || !this.isOp(')')) return null;
      this.i++;
      return n;
    }
    if (t.kind === 'num' || t.kind === 'str') {
      this.i++;
      return { t: 'lit', v: t.v };
    }
    if (t.kind === 'name') {
      const low = t.v.toLowerCase();
      if (['and', 'or', 'not'].includes(low)) return null;
      this.i++;
      if (low === 'true') return { t: 'lit', v: true };
      if (low === 'false') return { t: 'lit', v: false };
      return { t: 'var', name: t.v };
    }
    return null;
  }
}

/**
 * Why an evaluation stopped, thrown inside run() and caught by evaluateExpression. Not an Error: it
 * never leaves this module, and an Error's stack capture was most of an envelope's cost when a rule's
 * tiers name a variable the lot lacks.
 */
class EvaluationError {
  constructor(
    readonly reason: 'unknown_variable' | 'type_error',
    readonly message: string,
  ) {}
}

function run(n: Node, vars: Vars, used: Set<string>): ExprValue {
  switch (n.t) {
    case 'lit':
      return n.v;
    case 'var': {
      const v = vars[n.name];
      if (v === undefined || v === null) throw new EvaluationError('unknown_variable', n.name);
      used.add(n.name);
      return v;
    }
    case 'un': {
      const a = run(n.a, vars, used);
      if (n.op === 'not') {
        if (typeof a !== 'boolean') throw new EvaluationError('type_error', 'not of a non-boolean');
        return !a;
      }
      if (typeof a !== 'number') throw new EvaluationError('type_error', 'minus of a non-number');
      return -a;
    }
    case 'bin': {
      if (n.op === 'and' || n.op === 'or') {
        // A known deciding side settles the result even when the other side is unknown.
        const side = (x: Node): boolean | EvaluationError => {
          try {
            const v = run(x, vars, used);
            if (typeof v !== 'boolean') throw new EvaluationError('type_error', `${n.op} of a non-boolean`);
            return v;
          } catch (e) {
            if (e instanceof EvaluationError) return e;
            throw e;
          }
        };
        const a = side(n.a);
        const b = side(n.b);
        const decider = n.op !== 'and';
        if (a === decider || b === decider) return decider;
        if (a instanceof EvaluationError) throw a;
        if (b instanceof EvaluationError) throw b;
        return !decider;
      }
      const a = run(n.a, vars, used);
      const b = run(n.b, vars, used);
      if (n.op === '==') return a === b;
      if (n.op === '!=') return a !== b;
      if (typeof a !== 'number' || typeof b !== 'number') throw new EvaluationError('type_error', `${n.op} needs numbers`);
      switch (n.op) {
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          if (b === 0) throw new EvaluationError('type_error', 'division by zero');
          return a / b;
      }
      throw new EvaluationError('type_error', `unknown operator ${n.op}`);
    }
  }
}

/** True when the text parses as an expression (prose does not). */
export function isExpression(src: string): boolean {
  const toks = tokenize(src);
  return !!toks && toks.length > 0 && new Parser(toks).parse() !== null;
}

// Parsed trees by source text: the texts are a rules file's (a few hundred), evaluated on every
// snapshot; bounded all the same (dropped whole past TREES_MAX).
const TREES_MAX = 10_000;
const trees = new Map<string, Node | null>();
function treeOf(src: string): Node | null {
  let tree = trees.get(src);
  if (tree === undefined) {
    const toks = tokenize(src);
    tree = toks && toks.length > 0 ? new Parser(toks).parse() : null;
    if (trees.size >= TREES_MAX) trees.clear();
    trees.set(src, tree);
  }
  return tree;
}

export function evaluateExpression(src: string, vars: Vars): EvalResult {
  const tree = treeOf(src);
  if (!tree) return { ok: false, reason: 'unparseable', detail: src };
  const used = new Set<string>();
  try {
    const value = run(tree, vars, used);
    return { ok: true, value, usedVars: [...used] };
  } catch (e) {
    if (e instanceof EvaluationError) return { ok: false, reason: e.reason, detail: e.message };
    throw e;
  }
}
