// Syntax highlighting for the editors without a parser framework (so the first view needs
// only CodeMirror's view and state): the whole text is split into tokens by a small scanner
// for CEL (cel-spec's lexis) or YAML, and each token is marked with a `tok-<kind>` class
// (styled in index.html). The texts are small (an expression, a CRD): they are scanned again
// on every change (up to LARGEST).
import { Decoration, ViewPlugin } from '@codemirror/view';
import { RangeSetBuilder } from '@codemirror/state';

/** The longest text highlighted, in UTF-16 units. */
const LARGEST = 200_000;

const marks = new Map();
const mark = (kind) => {
  if (!marks.has(kind)) marks.set(kind, Decoration.mark({ class: `tok-${kind}` }));
  return marks.get(kind);
};

/** A CodeMirror extension highlighting with `tokens(text)` → [[from, to, kind], ...] in order. */
export function highlighter(tokens) {
  const build = (view) => {
    const builder = new RangeSetBuilder();
    // A text past LARGEST is shown plain (scanning it on every keystroke would lag).
    if (view.state.doc.length > LARGEST) return builder.finish();
    for (const [from, to, kind] of tokens(view.state.doc.toString())) {
      if (to > from) builder.add(from, to, mark(kind));
    }
    return builder.finish();
  };
  return ViewPlugin.fromClass(class {
    constructor(view) { this.decorations = build(view); }
    update(u) { if (u.docChanged) this.decorations = build(u.view); }
  }, { decorations: (v) => v.decorations });
}

const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
const RESERVED = new Set(['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** CEL's tokens: comments, strings (r/b prefixes, triple quotes), numbers, names, operators. */
export function celTokens(text) {
  const out = [];
  const re = /\/\/[^\n]*|([rRbB]{1,2})?('''|"""|'|")|0x[0-9a-fA-F]+[uU]?|(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?[uU]?|[A-Za-z_][A-Za-z0-9_]*|&&|\|\||[=!<>]=|[-+*/%<>!?:]|`[^`\n]*`?/g;
  let m;
  while ((m = re.exec(text))) {
    const from = m.index;
    const t = m[0];
    if (m[2]) { // a string: find its end
      const q = m[2];
      const raw = /r/i.test(m[1] ?? '');
      let i = re.lastIndex;
      for (;;) {
        if (i >= text.length || (q.length === 1 && text[i] === '\n')) break;
        if (!raw && text[i] === '\\') { i += 2; continue; }
        if (text.startsWith(q, i)) { i += q.length; break; }
        i++;
      }
      re.lastIndex = Math.min(i, text.length);
      out.push([from, re.lastIndex, 'string']);
    } else if (t.startsWith('//')) {
      out.push([from, re.lastIndex, 'comment']);
    } else if (/^[\d.]/.test(t)) {
      out.push([from, re.lastIndex, 'number']);
    } else if (/^[A-Za-z_]/.test(t)) {
      let kind = 'variableName';
      if (KEYWORDS.has(t)) kind = 'keyword';
      else if (RESERVED.has(t)) kind = 'invalid';
      else if (/^\s*\(/.test(text.slice(re.lastIndex, re.lastIndex + 40))) kind = 'function';
      else if (text[from - 1] === '.') kind = 'propertyName';
      out.push([from, re.lastIndex, kind]);
    } else if (t.startsWith('`')) {
      out.push([from, re.lastIndex, 'propertyName']);
    } else {
      out.push([from, re.lastIndex, 'operator']);
    }
  }
  return out;
}

/**
 * YAML's tokens, line by line: comments, document markers, keys (block and flow), quoted
 * strings, numbers and booleans/null, and the lines of block scalars (`|`, `>`) as strings.
 */
export function yamlTokens(text) {
  const out = [];
  let offset = 0;
  let block = -1; // the indentation a block scalar's lines exceed, or -1
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (block >= 0 && (line.trim() === '' || indent > block)) {
      out.push([offset, offset + line.length, 'string']);
    } else if (/^(---|\.\.\.)(\s|$)/.test(line)) {
      block = -1;
      out.push([offset, offset + 3, 'meta']);
    } else {
      block = -1;
      yamlLine(line, offset, out, () => { block = indent; });
    }
    offset += line.length + 1;
  }
  return out;
}

function yamlLine(line, offset, out, blockScalar) {
  // Whether a key ends at `end` (blanks, then `:` and a blank or the line's end).
  const key = (end) => {
    let k = end;
    while (line[k] === ' ' || line[k] === '\t') k++;
    return line[k] === ':' && (k + 1 >= line.length || /\s/.test(line[k + 1]));
  };
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      out.push([offset + i, offset + line.length, 'comment']);
      return;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += c === '"' && line[j] === '\\' ? 2 : 1;
      j = Math.min(j + 1, line.length);
      out.push([offset + i, offset + j, key(j) ? 'propertyName' : 'string']);
      i = j;
    } else if ((c === '|' || c === '>') && /^[|>][-+]?\d*\s*(#.*)?$/.test(line.slice(i))) {
      out.push([offset + i, offset + i + 1, 'meta']);
      blockScalar();
      i++;
    } else if (/[\s:,{}[\]?]/.test(c) || (c === '-' && /\s/.test(line[i + 1] ?? ' '))) {
      i++;
    } else {
      // A plain scalar: up to `: `, a flow indicator or ` #`.
      let j = i;
      while (j < line.length && !/[,{}[\]]/.test(line[j]) && !(line[j] === ':' && key(j))
        && !(line[j] === '#' && /\s/.test(line[j - 1]))) j++;
      let end = j;
      while (end > i && /\s/.test(line[end - 1])) end--;
      const word = line.slice(i, end);
      let kind;
      if (key(j)) kind = 'propertyName';
      else if (/^(true|false|null|~|True|False|Null|TRUE|FALSE|NULL)$/.test(word)) kind = 'atom';
      else if (/^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|0x[0-9a-fA-F]+|\.\d+|\.inf|\.nan)$/.test(word)) kind = 'number';
      if (kind) out.push([offset + i, offset + end, kind]);
      i = Math.max(j, i + 1);
    }
  }
}
