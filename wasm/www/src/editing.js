// What editing needs beyond showing text, loaded by editors.js on the first focus on an
// editor or the first error to underline: the keymaps and history, cursor, selection and
// active line drawing, bracket matching and closing, completion, the lint gutter and error
// underlining.
import { keymap, drawSelection, highlightActiveLine } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { autocompletion, completionKeymap, closeBrackets } from '@codemirror/autocomplete';
import { setDiagnostics, lintGutter, diagnosticCount } from '@codemirror/lint';

export { setDiagnostics, diagnosticCount };

/** The extensions of one editor: `cel` adds the lint gutter and, with `complete`, completion. */
export function editingExtensions({ cel, complete }) {
  const extensions = [
    history(), drawSelection(), highlightActiveLine(), bracketMatching(), closeBrackets(),
    keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap]),
  ];
  if (cel) {
    extensions.push(lintGutter());
    if (complete) extensions.push(autocompletion({ override: [complete], activateOnTyping: true }));
  }
  return extensions;
}
