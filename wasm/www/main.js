// The page: reads the panes, sends requests to the engine's worker, shows the answers.
// A run-away evaluation is stopped by its cost limit; Stop terminates the worker outright.
const $ = (id) => document.getElementById(id);

for (let minor = 37; minor >= 27; minor--) {
  $('version').add(new Option(`1.${minor}`, `1.${minor}`));
}

let worker;
let nextId = 0;
let pending = null;
let timer;

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    if (data.type === 'ready') {
      setStatus('ready', `ready (kcel ${data.version})`);
      $('run').disabled = false;
      run();
    } else if (data.type === 'answer' && data.id === nextId) { // stale answers are dropped
      pending = null;
      $('stop').disabled = true;
      show(data.answer);
    }
  };
  worker.onerror = (e) => setStatus('error', `the engine failed: ${e.message}`);
}

function setStatus(state, text) {
  $('status').dataset.state = state;
  $('status').textContent = text;
}

// `name: type` lines (CEL types have no colons).
function declarations() {
  const out = {};
  for (const line of $('decls').value.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

function request() {
  const req = {
    expression: $('expr').value,
    env: $('env').value,
    version: $('version').value,
    mode: $('mode').value,
    variables: $('vars').value,
    declarations: declarations(),
  };
  const limit = $('cost-limit').value.trim();
  if (limit !== '') req.costLimit = Number(limit);
  return req;
}

function run() {
  clearTimeout(timer);
  if ($('run').disabled) return;
  pending = ++nextId;
  $('output').dataset.state = 'pending';
  $('stop').disabled = false;
  worker.postMessage({ id: pending, op: 'evaluate', request: request() });
}

function show(answer) {
  const out = $('output');
  // Milliseconds from navigation to the first answer shown (read by the e2e test).
  document.body.dataset.firstAnswerMs ??= Math.round(performance.now());
  if (answer.error) {
    const e = answer.error;
    const where = e.line ? `${e.line}:${e.column}: ` : '';
    let text = `${e.phase} error: ${where}${e.message}`;
    if (e.line && (e.phase === 'parse' || e.phase === 'check' || e.phase === 'eval')) {
      const line = $('expr').value.split('\n')[e.line - 1] ?? '';
      text += `\n | ${line}\n | ${'.'.repeat(Math.max(0, e.column - 1))}^`;
    }
    $('error').textContent = text;
    $('error').hidden = false;
    $('result').hidden = true;
    out.dataset.state = 'error';
  } else {
    $('value').textContent = JSON.stringify(answer.value, null, 2);
    $('type').textContent = answer.type;
    const c = answer.cost;
    $('cost').textContent = `${c.actual} (estimate ${c.min} to ${c.max})`;
    $('error').hidden = true;
    $('result').hidden = false;
    out.dataset.state = 'ok';
  }
}

for (const id of ['expr', 'vars', 'decls', 'cost-limit']) {
  $(id).addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(run, 250); });
}
function envChanged() {
  const cel = $('env').value === 'cel';
  $('version').disabled = cel;
  $('mode').disabled = cel;
}
$('env').addEventListener('change', envChanged);
for (const id of ['env', 'version', 'mode']) $(id).addEventListener('change', run);
$('expr').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
});
$('run').addEventListener('click', run);
$('stop').addEventListener('click', () => {
  worker.terminate();
  $('run').disabled = true;
  $('stop').disabled = true;
  $('output').dataset.state = 'stopped';
  setStatus('loading', 'stopped; restarting the engine…');
  startWorker();
});

startWorker();
