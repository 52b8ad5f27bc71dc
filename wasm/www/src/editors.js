// The playground's code editors (CodeMirror 6): CEL with highlighting, errors underlined at
// their line:column, completion of variables, functions and macros; YAML panes for values,
// CRDs and policies. Keyboard only: Tab moves focus out of an editor (Ctrl+Space completes,
// Ctrl+Enter evaluates).
import { EditorState, Compartment } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { highlighter, celTokens, yamlTokens } from './highlight.js';

const cel = highlighter(celTokens);
const yaml = highlighter(yamlTokens);

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
 * after edits; `complete` (CEL only): `{functions, variables}`, functions returning the
 * environment's functions and the variable names, for completion (see editing.js).
 */
export function createEditor(parent, { doc = '', language, onChange, onRun, complete, label, hint }) {
  const languageConf = new Compartment();
  const editing = new Compartment();
  const extensions = [
    lineNumbers(),
    // Before the editing keymaps (whose Mod-Enter inserts a line).
    keymap.of([{ key: 'Mod-Enter', run: () => { onRun?.(); return true; } }]),
    editing.of([]),
    theme,
    EditorView.contentAttributes.of({ 'aria-label': label ?? 'editor' }),
    EditorView.updateListener.of((u) => { if (u.docChanged) onChange?.(); }),
    EditorView.domEventHandlers({ focus: () => { loadEditing(); }, pointerdown: () => { loadEditing(); } }),
    languageConf.of(language === 'cel' ? cel : language === 'yaml' ? yaml : []),
  ];
  if (hint) extensions.push(placeholder(hint));
  const view = new EditorView({ state: EditorState.create({ doc, extensions }), parent });
  let lint; // the lint functions, once loaded
  const attach = (m) => {
    if (lint) return;
    lint = m;
    view.dispatch({ effects: editing.reconfigure(m.editingExtensions({ language, complete })) });
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
