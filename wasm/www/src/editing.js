// What editing needs beyond showing text, loaded by editors.js on the first focus on an
// editor or the first error to underline: the keymaps and history, cursor, selection and
// active line drawing, bracket matching and closing, completion, the lint gutter and error
// underlining.
import { keymap, drawSelection, highlightActiveLine } from '@codemirror/view';
import { EditorState } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { autocompletion, completionKeymap, closeBrackets } from '@codemirror/autocomplete';
import { setDiagnostics, lintGutter, diagnosticCount } from '@codemirror/lint';

export { setDiagnostics, diagnosticCount };

/**
 * The extensions of one editor: comment toggling for its `language` ('cel' or 'yaml'); CEL
 * adds the lint gutter and, with `complete` ({functions, variables}), completion.
 */
export function editingExtensions({ language, complete }) {
  const extensions = [
    history(), drawSelection(), highlightActiveLine(), bracketMatching(), closeBrackets(),
    keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap]),
  ];
  const comment = { cel: '//', yaml: '#' }[language];
  if (comment) extensions.push(EditorState.languageData.of(() => [{ commentTokens: { line: comment } }]));
  if (language === 'cel') {
    extensions.push(lintGutter());
    if (complete) {
      const source = celCompletions(complete.functions, complete.variables);
      extensions.push(autocompletion({ override: [source], activateOnTyping: true }));
    }
  }
  return extensions;
}

/** CEL's macros (cel-go's parser expands them; they are not in `functions`). */
export const MACROS = [
  ['has', 'has(e.f) — whether the field f is set', 'has(${})'],
  ['all', 'e.all(x, p) — whether p holds for every element (or key)', 'all(x, ${})'],
  ['exists', 'e.exists(x, p) — whether p holds for some element', 'exists(x, ${})'],
  ['exists_one', 'e.exists_one(x, p) — whether p holds for exactly one element', 'exists_one(x, ${})'],
  ['map', 'e.map(x, t) or e.map(x, p, t) — the transformed (filtered) list', 'map(x, ${})'],
  ['filter', 'e.filter(x, p) — the elements for which p holds', 'filter(x, ${})'],
];

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

