// The playground's code editors (CodeMirror 6): CEL with highlighting, errors underlined at
// their line:column, completion of variables, functions and macros; YAML panes for values,
// CRDs and policies. Keyboard only: Tab moves focus out of an editor (Ctrl+Space completes,
// Ctrl+Enter evaluates).
import { EditorState, Compartment } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { StreamLanguage, syntaxHighlighting, HighlightStyle } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { yaml } from '@codemirror/legacy-modes/mode/yaml';

const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
const RESERVED = new Set(['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
/** CEL's macros (cel-go's parser expands them; they are not in `functions`). */
export const MACROS = [
  ['has', 'has(e.f) — whether the field f is set', 'has(${})'],
  ['all', 'e.all(x, p) — whether p holds for every element (or key)', 'all(x, ${})'],
  ['exists', 'e.exists(x, p) — whether p holds for some element', 'exists(x, ${})'],
  ['exists_one', 'e.exists_one(x, p) — whether p holds for exactly one element', 'exists_one(x, ${})'],
  ['map', 'e.map(x, t) or e.map(x, p, t) — the transformed (filtered) list', 'map(x, ${})'],
  ['filter', 'e.filter(x, p) — the elements for which p holds', 'filter(x, ${})'],
];

// CEL tokens (cel-spec's lexis): strings with prefixes r/b and triple quotes, numbers with
// u suffix, hex, exponents; identifiers; operators; comments.
const cel = StreamLanguage.define({
  name: 'cel',
  startState: () => ({ quote: null }),
  token(stream, state) {
    if (state.quote) return string(stream, state);
    if (stream.eatSpace()) return null;
    if (stream.match('//')) { stream.skipToEnd(); return 'comment'; }
    const prefix = stream.match(/^[rRbB]{1,2}(?=['"])/);
    const q = stream.match(/^('''|"""|'|")/);
    if (q) {
      state.quote = q[0];
      state.raw = Boolean(prefix && /r/i.test(prefix[0]));
      return string(stream, state);
    }
    if (prefix) stream.backUp(prefix[0].length);
    if (stream.match(/^0x[0-9a-fA-F]+u?/) || stream.match(/^(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?u?/)) {
      return 'number';
    }
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (word) {
      if (KEYWORDS.has(word[0])) return 'keyword';
      if (RESERVED.has(word[0])) return 'invalid';
      if (stream.match(/^\s*\(/, false)) return 'function';
      return stream.string[stream.start - 1] === '.' ? 'propertyName' : 'variableName';
    }
    if (stream.match(/^(&&|\|\||==|!=|<=|>=|[-+*/%<>!?:])/)) return 'operator';
    stream.next();
    return 'punctuation';
  },
  tokenTable: { function: tags.function(tags.variableName) },
  languageData: { commentTokens: { line: '//' } },
});

function string(stream, state) {
  const q = state.quote;
  while (!stream.eol()) {
    if (!state.raw && stream.eat('\\')) { stream.next(); continue; }
    if (stream.match(q)) { state.quote = null; return 'string'; }
    stream.next();
  }
  if (q.length === 1) state.quote = null; // a one-quote string ends at the line's end
  return 'string';
}

const style = HighlightStyle.define([
  { tag: tags.keyword, color: '#708' },
  { tag: tags.string, color: '#a11' },
  { tag: tags.number, color: '#164' },
  { tag: tags.comment, color: '#777', fontStyle: 'italic' },
  { tag: tags.function(tags.variableName), color: '#00c' },
  { tag: tags.propertyName, color: '#05a' },
  { tag: tags.operator, color: '#555' },
  { tag: tags.invalid, color: '#f00' },
  { tag: [tags.atom, tags.bool], color: '#219' },
  { tag: tags.definition(tags.propertyName), color: '#05a' },
]);

const theme = EditorView.theme({
  '&': { fontSize: '13.5px', border: '1px solid #bbb', borderRadius: '4px', background: '#fff' },
  '&.cm-focused': { outline: '2px solid #58f' },
  '.cm-content': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
  '.cm-gutters': { background: '#f6f6f6', borderRight: '1px solid #ddd' },
  '.cm-scroller': { overflow: 'auto' },
});

// What only matters once an editor has the focus (keys, history, cursor and selection
// drawing, bracket matching and closing, completion) or shows an error (underlining) is not
// needed to show the page: ./editing.js loads with the first focus on an editor (or the
// first error to underline), then every editor gets it.
let extras; // the promise of ./editing.js
const waiting = []; // (module) => void, for each editor created
function loadEditing() {
  extras ??= import('./editing.js').then((m) => { for (const f of waiting) f(m); return m; });
  return extras;
}

/**
 * Creates an editor in `parent`. `language`: 'cel' or 'yaml' (or none); `onChange` is called
 * after edits; `complete` (CEL only) returns the completion options for the current word.
 */
export function createEditor(parent, { doc = '', language, onChange, onRun, complete, label, hint }) {
  const languageConf = new Compartment();
  const editing = new Compartment();
  const extensions = [
    lineNumbers(),
    // Before the editing keymaps (whose Mod-Enter inserts a line).
    keymap.of([{ key: 'Mod-Enter', run: () => { onRun?.(); return true; } }]),
    editing.of([]),
    syntaxHighlighting(style),
    theme,
    EditorView.contentAttributes.of({ 'aria-label': label ?? 'editor' }),
    EditorView.updateListener.of((u) => { if (u.docChanged) onChange?.(); }),
    EditorView.domEventHandlers({ focus: () => { loadEditing(); }, pointerdown: () => { loadEditing(); } }),
    languageConf.of(language === 'cel' ? cel : language === 'yaml' ? StreamLanguage.define(yaml) : []),
  ];
  if (hint) extensions.push(placeholder(hint));
  const view = new EditorView({ state: EditorState.create({ doc, extensions }), parent });
  let lint; // the lint functions, once loaded
  const attach = (m) => {
    if (lint) return;
    lint = m;
    view.dispatch({ effects: editing.reconfigure(m.editingExtensions({ cel: language === 'cel', complete })) });
    parent.dataset.editing = 'ready';
  };
  waiting.push(attach);
  // An editor made after the extras started loading gets them too.
  extras?.then(attach);
  return {
    view,
    get value() { return view.state.doc.toString(); },
    set value(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text ?? '' } });
    },
    /** Underlines the error at 1-based `line`:`column` (to the end of the word there). */
    showError(line, column, message) {
      if (!lint) {
        loadEditing().then(() => this.showError(line, column, message));
        return;
      }
      const doc = view.state.doc;
      if (!line || line > doc.lines) {
        view.dispatch(lint.setDiagnostics(view.state, message
          ? [{ from: 0, to: doc.length, severity: 'error', message }] : []));
        return;
      }
      const l = doc.line(line);
      const from = Math.min(l.from + Math.max(0, column - 1), l.to);
      const rest = doc.sliceString(from, l.to);
      const word = /^[A-Za-z0-9_.]+/.exec(rest);
      const to = Math.min(l.to, from + (word ? word[0].length : 1));
      view.dispatch(lint.setDiagnostics(view.state, [{
        from, to: Math.max(to, from === l.to ? from : from + 1), severity: 'error', message,
      }]));
    },
    clearError() {
      if (lint && lint.diagnosticCount(view.state) > 0) view.dispatch(lint.setDiagnostics(view.state, []));
    },
    /** Selects `from`..`to` (UTF-16 offsets), scrolls it into view and focuses the editor. */
    select(from, to) {
      const len = view.state.doc.length;
      view.dispatch({ selection: { anchor: Math.min(from, len), head: Math.min(to, len) }, scrollIntoView: true });
      view.focus();
    },
  };
}

/**
 * A completion source from the environment's functions (the API's `functions` answer), the
 * macros, and the variable names `variables()` returns.
 */
export function celCompletions(getFunctions, variables) {
  return (context) => {
    // The dotted word before the cursor: `self.metadata.na`, `format.dns`, `size`.
    const dotted = context.matchBefore(/[A-Za-z_][A-Za-z0-9_.]*/);
    if (!dotted && !context.explicit) return null;
    const text = dotted ? dotted.text : '';
    const functions = getFunctions().filter((f) => /^[A-Za-z]/.test(f.name));
    const info = (f) => [f.doc, ...(f.examples ?? [])].filter(Boolean).join('\n') || undefined;
    const detail = (f) => f.overloads.map((o) => o.signature).slice(0, 3).join('  |  ');
    // A global overload's signature starts with the name; a member's with its receiver.
    const isGlobal = (f) => f.overloads.some((o) => o.signature.startsWith(`${f.name}(`));
    const isMember = (f) => f.overloads.some((o) => !o.signature.startsWith(`${f.name}(`));
    // Namespaced functions (`format.dns1123Label`, `optional.of`, `lists.range`) complete
    // from the start of the dotted word.
    if (text.includes('.')) {
      const qualified = functions.filter((f) => f.name.includes('.') && f.name.startsWith(text) && isGlobal(f));
      if (qualified.length) {
        return {
          from: dotted.from,
          options: qualified.map((f) => ({ label: f.name, type: 'function', detail: detail(f), info: info(f), apply: `${f.name}(` })),
          validFor: /^[A-Za-z0-9_.]*$/,
        };
      }
    }
    const lastDot = text.lastIndexOf('.');
    // After a dot within the word, or right after one (`[1].exi`, `f(x).si`).
    const start = dotted ? dotted.from : context.pos;
    const afterDot = lastDot >= 0 || context.state.doc.sliceString(start - 1, start) === '.';
    const from = dotted ? dotted.from + lastDot + 1 : context.pos;
    const options = [];
    for (const f of functions) {
      if (f.name.includes('.') ? afterDot : afterDot ? !isMember(f) : !isGlobal(f)) continue;
      options.push({ label: f.name, type: 'function', detail: detail(f), info: info(f), apply: `${f.name}(` });
    }
    for (const [name, doc] of MACROS) {
      if (afterDot !== (name !== 'has')) continue;
      options.push({ label: name, type: 'keyword', detail: 'macro', info: doc, apply: `${name}(` });
    }
    if (!afterDot) {
      for (const name of variables()) options.push({ label: name, type: 'variable' });
      for (const k of ['true', 'false', 'null']) options.push({ label: k, type: 'keyword' });
    }
    return { from, options, validFor: /^[A-Za-z0-9_]*$/ };
  };
}
