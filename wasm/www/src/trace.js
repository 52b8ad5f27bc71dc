// The "why" view: the engine's `explain` answer (every sub-expression's value, in
// evaluation order, each sub-step deeper than its step) as a tree. Steps that were false or
// failed are marked, so the element an `all()` failed on stands out; choosing a step selects
// its text in the editor.

/**
 * Renders `answer.steps` into `tree` (a <ul>); `onPick(from, to)` is called when a step is
 * chosen. Returns how many steps were false or failed.
 */
export function renderTrace(tree, answer, onPick) {
  tree.replaceChildren();
  const open = [tree]; // the <ul> of each depth
  let falsy = 0;
  for (const step of answer.steps ?? []) {
    open.length = Math.min(open.length, step.depth + 1);
    let parent = open[open.length - 1];
    const li = document.createElement('li');
    const row = document.createElement('button');
    row.type = 'button';
    row.className = 'step';
    row.title = 'select in the expression';
    const code = Object.assign(document.createElement('code'), { textContent: step.text || '…' });
    const arrow = document.createTextNode(' → ');
    const shown = Object.assign(document.createElement('span'), {
      className: step.error !== undefined ? 'value err' : 'value',
      textContent: step.error !== undefined ? `error: ${step.error}` : step.value,
    });
    const cost = Object.assign(document.createElement('span'), { className: 'cost', textContent: `cost ${step.cost}` });
    row.append(code, arrow, shown, ' ', cost);
    row.addEventListener('click', () => onPick?.(step.from, step.to));
    li.append(row);
    if (step.error !== undefined || step.value === 'false') {
      li.classList.add('falsy');
      falsy++;
    }
    li.dataset.depth = String(step.depth);
    parent.append(li);
    const children = document.createElement('ul');
    li.append(children);
    open.push(children);
  }
  // Drop the empty lists of leaves.
  for (const ul of tree.querySelectorAll('ul:empty')) ul.remove();
  return falsy;
}
