// The playground page: three modes (an expression, a CRD's rules, admission policies) over
// the engine's worker, editors, a gallery of examples and share links. All state that a
// share link carries is in `state()`; `restore()` puts it back.
import { createEditor } from './editors.js';
import { Engine } from './engine.js';
import { EXAMPLES } from './examples.js';
// Loaded when first used (not needed for the first view): share links and the trace view.
const share = () => import('./share.js');
const traceView = () => import('./trace.js');

// Milliseconds from navigation to each step of the first answer (read by e2e/measure.mjs).
const phases = { script: Math.round(performance.now()) };
const $ = (id) => document.getElementById(id);
const NEWEST = 37;
for (let minor = NEWEST; minor >= 27; minor--) $('version').add(new Option(`1.${minor}`, `1.${minor}`));

let mode = 'expression';
let functions = [];
let timer;
let generation = 0; // answers to older requests are dropped
let restarted = false;

// The expression and variables the page opens with (index.html asks for their answer at once).
const DEFAULT = { expr: window.kcelDefault.expression, vars: window.kcelDefault.variables };

function changed() {
  clearTimeout(timer);
  timer = setTimeout(run, 300);
}

// The editors by id. Those of the modes not shown are made when their mode is first shown
// (fewer to make before the first answer); until then their text is kept here.
const editors = {};
function editor(id, options = {}) {
  let real;
  let text = options.doc ?? '';
  const make = () => {
    real ??= createEditor($(id), {
      onChange: changed,
      onRun: run,
      label: $(`${id}-label`)?.textContent ?? id,
      ...options,
      doc: text,
    });
    return real;
  };
  editors[id] = {
    make,
    get value() { return real ? real.value : text; },
    set value(t) { if (real) real.value = t; else text = t ?? ''; },
    showError: (...a) => make().showError(...a),
    clearError: () => real?.clearError(),
    select: (...a) => make().select(...a),
  };
  if (!$(id).closest('[hidden]')) make();
  return editors[id];
}

const variableNames = () => {
  const names = new Set();
  for (const m of editors.vars.value.matchAll(/^["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*:/gm)) names.add(m[1]);
  for (const m of editors.decls.value.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:/gm)) names.add(m[1]);
  return [...names];
};

editor('expr', {
  language: 'cel',
  doc: DEFAULT.expr,
  complete: { functions: () => functions, variables: variableNames },
  hint: 'a CEL expression',
});
editor('vars', { language: 'yaml', doc: DEFAULT.vars });
editor('decls', { hint: 't: timestamp' });
editor('crd', { language: 'yaml' });
editor('object', { language: 'yaml' });
editor('old', { language: 'yaml' });
for (const id of ['policies', 'bindings', 'adm-object', 'adm-old', 'params', 'request', 'namespace', 'authorizer']) {
  editor(id, { language: 'yaml' });
}

phases.editors = Math.round(performance.now());
const engine = new Engine({
  onReady(version, times) {
    Object.assign(phases, times);
    setStatus('ready', `ready (kcel ${version})`);
    $('run').disabled = false;
    // The first start evaluates what is on the page; a restart after Stop waits for the user.
    // The functions (for completion) are asked for after the first answer.
    if (restarted) loadFunctions();
    else run().then(loadFunctions);
  },
  onStatus(text, state = 'ready') { setStatus(state, text); },
});

function setStatus(state, text) {
  $('status').dataset.state = state;
  $('status').textContent = text;
}

function envRequest() {
  return { env: $('env').value, version: $('version').value, mode: $('k8s-mode').value };
}

async function loadFunctions() {
  const answer = await engine.call('functions', envRequest());
  if (Array.isArray(answer)) functions = answer;
}

// `name: type` lines (CEL types have no colons).
function declarations() {
  const out = {};
  for (const line of editors.decls.value.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

const optional = (text) => (text.trim() === '' ? undefined : text);

function request() {
  if (mode === 'expression') {
    const req = {
      expression: editors.expr.value,
      ...envRequest(),
      variables: editors.vars.value,
      declarations: declarations(),
    };
    const limit = $('cost-limit').value.trim();
    if (limit !== '') req.costLimit = Number(limit);
    return ['evaluate', req];
  }
  if (mode === 'crd') {
    return ['validateCrd', {
      crd: editors.crd.value, object: editors.object.value, old: optional(editors.old.value),
      version: $('version').value, mode: $('k8s-mode').value,
    }];
  }
  const req = {
    policies: editors.policies.value,
    bindings: editors.bindings.value,
    request: editors.request.value,
    object: optional(editors['adm-object'].value),
    oldObject: optional(editors['adm-old'].value),
    params: optional(editors.params.value),
    version: $('version').value,
  };
  const ns = editors.namespace.value.trim();
  if (ns !== '') req.namespace = ns;
  const authz = editors.authorizer.value.trim();
  if (authz === 'allow' || authz === 'deny') req.authorizer = authz;
  else if (authz !== '') req.authorizer = authz;
  return ['admit', req];
}

async function run() {
  clearTimeout(timer);
  if (!engine.ready) return;
  const mine = ++generation;
  const out = outputOf(mode);
  out.dataset.state = 'pending';
  $('stop').disabled = false;
  const [op, req] = request();
  const shownMode = mode;
  const answer = await engine.call(op, req);
  if (mine !== generation) return;
  $('stop').disabled = true;
  if (answer.stopped) return;
  if (shownMode === 'expression') showExpression(answer, req);
  else if (shownMode === 'crd') showCrd(answer);
  else showAdmission(answer);
  // Milliseconds from navigation to the first answer shown (read by the e2e tests).
  if (!document.body.dataset.firstAnswerMs) {
    phases.answer = Math.round(performance.now());
    document.body.dataset.phases = JSON.stringify(phases);
    document.body.dataset.firstAnswerMs = phases.answer;
  }
}

const outputOf = (m) => $({ expression: 'output', crd: 'crd-output', admission: 'adm-output' }[m]);
const fmt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n));

function errorText(e) {
  const where = e.line ? `${e.line}:${e.column}: ` : '';
  return `${e.phase} error: ${where}${e.message}`;
}

function showExpression(answer, req) {
  const out = $('output');
  hideTrace();
  if (answer.error) {
    const e = answer.error;
    let text = errorText(e);
    const source = e.phase === 'parse' || e.phase === 'check' || e.phase === 'eval';
    if (e.line && source) {
      const line = editors.expr.value.split('\n')[e.line - 1] ?? '';
      text += `\n | ${line}\n | ${'.'.repeat(Math.max(0, e.column - 1))}^`;
      editors.expr.showError(e.line, e.column, `${e.phase} error: ${e.message}`);
    } else {
      editors.expr.clearError();
    }
    $('error').textContent = text;
    $('error').hidden = false;
    $('result').hidden = true;
    out.dataset.state = 'error';
    return;
  }
  editors.expr.clearError();
  $('value').textContent = JSON.stringify(answer.value, null, 2);
  $('type').textContent = answer.type;
  const c = answer.cost;
  const limit = req.costLimit === 0 ? 'none'
    : fmt(req.costLimit ?? (req.env === 'cel' ? 100_000_000 : 1_000_000));
  // The estimate's maximum is 2^64-1 when a size is unknown (cel-go's saturation).
  const max = c.max >= 2 ** 64 - 2 ** 11 ? 'unbounded' : c.max;
  $('cost').textContent = `${c.actual} (estimate ${c.min} to ${max}; limit ${limit})`;
  $('cost').dataset.limit = limit;
  $('error').hidden = true;
  $('result').hidden = false;
  out.dataset.state = 'ok';
}

function hideTrace() {
  $('trace').hidden = true;
  $('trace').replaceChildren();
  $('trace-note').textContent = '';
}

// "Why?": the expression evaluated again by `explain`, its trace shown as a tree.
async function explainExpression() {
  if (!engine.ready || mode !== 'expression') return;
  clearTimeout(timer);
  const mine = ++generation;
  const [, req] = request();
  $('trace-note').textContent = 'tracing…';
  $('stop').disabled = false;
  const view = traceView(); // loads while the engine traces
  const answer = await engine.call('explain', req);
  const { renderTrace } = await view;
  if (mine !== generation) return;
  $('stop').disabled = true;
  if (answer.stopped) return;
  showExpression(answer, req);
  const falsy = renderTrace($('trace'), answer, (from, to) => editors.expr.select(from, to));
  const steps = answer.steps?.length ?? 0;
  $('trace').hidden = steps === 0;
  $('trace-note').textContent = `${steps} steps${answer.dropped ? ` (${fmt(answer.dropped)} more not recorded)` : ''}`
    + `; ${falsy} false or failed`;
}

function list(ul, items) {
  ul.replaceChildren(...items.map((t) => Object.assign(document.createElement('li'), { textContent: t })));
}

function cell(tr, text, className) {
  const td = tr.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function showCrd(answer) {
  const out = $('crd-output');
  const table = $('crd-rules');
  if (answer.error) {
    out.dataset.state = 'error';
    $('crd-summary').textContent = answer.error.phase === 'schema'
      ? 'The API server would reject this CRD:' : errorText(answer.error);
    list($('crd-errors'), (answer.error.errors ?? []).map((e) => `${e.field}: ${e.message}`));
    list($('crd-warnings'), []);
    $('crd-cost').textContent = '';
    table.hidden = true;
    return;
  }
  const objects = answer.objects;
  out.dataset.state = answer.valid ? 'valid' : 'invalid';
  $('crd-summary').textContent = objects.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}: ${o.valid ? 'valid' : 'invalid'}`).join('; ');
  // A built-in object's decoding error stands alone; its field errors follow as a CRD's do.
  list($('crd-errors'), objects.flatMap((o) => (o.decode_error ? [o.decode_error] : [])
    .concat(o.errors.map((e) => `${e.field}: ${e.message}`))));
  list($('crd-warnings'), objects.flatMap((o) => o.warnings.map((w) => `Warning: ${w}`)));
  // The first custom resource's budget (objects of built-in kinds run no rules).
  const o = objects.find((x) => x.budget);
  $('crd-cost').textContent = o
    ? `per-object cost budget ${fmt(o.budget.limit)}, used ${fmt(o.budget.limit - o.budget.remaining)}` : '';
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const r of answer.rules) {
    const tr = body.insertRow();
    cell(tr, r.rule).style.fontFamily = 'ui-monospace, monospace';
    cell(tr, r.path.replace(/\.x-kubernetes-validations\[\d+\]\.rule$/, ''));
    cell(tr, `${fmt(r.estimate.min)}–${fmt(r.estimate.max)} × ${fmt(r.cardinality)} = ${fmt(r.charged)} / ${fmt(r.limit)}`,
      r.charged > r.limit ? 'over' : '');
    const actual = objects.flatMap((ob) => ob.costs.filter((c) => c.rule === r.rule).map((c) => `${c.path || '<root>'}: ${fmt(c.cost)}`));
    cell(tr, actual.join(', ') || 'not run');
  }
  table.hidden = answer.rules.length === 0;
}

function showAdmission(answer) {
  const out = $('adm-output');
  const table = $('adm-costs');
  if (answer.error) {
    out.dataset.state = 'error';
    $('adm-decision').textContent = errorText(answer.error);
    list($('adm-warnings'), []);
    list($('adm-errors'), []);
    $('adm-audit').textContent = '';
    table.hidden = true;
    return;
  }
  out.dataset.state = answer.allowed ? 'allowed' : 'invalid';
  const s = answer.status;
  $('adm-decision').textContent = answer.allowed ? 'Allowed' : `Denied (${s.code} ${s.reason}): ${s.message}`;
  list($('adm-warnings'), answer.warnings.map((w) => `Warning: ${w}`));
  const audit = Object.entries(answer.annotations ?? {});
  $('adm-audit').textContent = audit.length ? `Audit annotations:\n${audit.map(([k, v]) => `  ${k}: ${v}`).join('\n')}` : '';
  list($('adm-errors'), [...answer.policyErrors.map((e) => `policy: ${e}`), ...answer.bindingErrors.map((e) => `binding: ${e}`)]);
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const c of answer.costs) {
    const tr = body.insertRow();
    cell(tr, c.policy); cell(tr, c.binding); cell(tr, c.field); cell(tr, fmt(c.cost));
  }
  table.hidden = answer.costs.length === 0;
}

function setMode(next) {
  mode = next;
  for (const tab of document.querySelectorAll('[role=tab]')) {
    tab.setAttribute('aria-selected', String(tab.dataset.mode === mode));
    tab.tabIndex = tab.dataset.mode === mode ? 0 : -1;
  }
  for (const el of document.querySelectorAll('[data-only]')) {
    el.hidden = !el.dataset.only.split(' ').includes(mode);
  }
  for (const [id, ed] of Object.entries(editors)) if (!$(id).closest('[hidden]')) ed.make();
  envChanged();
}

for (const tab of document.querySelectorAll('[role=tab]')) {
  tab.addEventListener('click', () => { setMode(tab.dataset.mode); run(); });
  tab.addEventListener('keydown', (e) => {
    const tabs = [...document.querySelectorAll('[role=tab]')];
    const i = tabs.indexOf(tab);
    const j = e.key === 'ArrowRight' ? (i + 1) % tabs.length : e.key === 'ArrowLeft' ? (i + tabs.length - 1) % tabs.length : -1;
    if (j >= 0) { tabs[j].focus(); tabs[j].click(); }
  });
}

// Everything a share link restores.
function state() {
  const values = Object.fromEntries(Object.entries(editors).map(([id, ed]) => [id, ed.value]));
  return {
    v: 1, mode, env: $('env').value, version: $('version').value, k8sMode: $('k8s-mode').value,
    costLimit: $('cost-limit').value, editors: values,
  };
}

function restore(s) {
  $('env').value = s.env ?? 'kubernetes';
  $('version').value = s.version ?? `1.${NEWEST}`;
  $('k8s-mode').value = s.k8sMode ?? 'new';
  $('cost-limit').value = s.costLimit ?? '';
  for (const [id, text] of Object.entries(s.editors ?? {})) {
    if (editors[id]) editors[id].value = text;
  }
  envChanged();
  setMode(s.mode ?? 'expression');
}

function loadExample(ex) {
  const values = {};
  if (ex.expression) Object.assign(values, ex.expression);
  if (ex.crd) Object.assign(values, { crd: ex.crd.crd, object: ex.crd.object, old: ex.crd.old });
  if (ex.admission) {
    const a = ex.admission;
    Object.assign(values, {
      policies: a.policies, bindings: a.bindings, params: a.params, request: a.request,
      'adm-object': a.object, 'adm-old': a.oldObject, namespace: a.namespace, authorizer: a.authorizer,
    });
  }
  restore({ ...state(), mode: ex.mode, env: 'kubernetes', version: `1.${NEWEST}`, k8sMode: 'new', costLimit: '', editors: { ...state().editors, ...values } });
  run();
}

EXAMPLES.forEach((ex, i) => $('gallery').add(new Option(ex.title, String(i))));
$('gallery').addEventListener('change', () => {
  const ex = EXAMPLES[Number($('gallery').value)];
  if (ex) loadExample(ex);
});

$('share').addEventListener('click', async () => {
  const fragment = await (await share()).encodeState(state());
  history.replaceState(null, '', `#${fragment}`);
  const url = location.href;
  $('share').dataset.url = url;
  try {
    await navigator.clipboard.writeText(url);
    $('share-status').textContent = 'link copied';
  } catch {
    $('share-status').textContent = 'link in the address bar';
  }
});

function envChanged() {
  // Plain CEL has no Kubernetes version; the CRD and admission modes always do.
  const cel = mode === 'expression' && $('env').value === 'cel';
  $('version').disabled = cel;
  $('k8s-mode').disabled = cel;
}
$('env').addEventListener('change', envChanged);
for (const id of ['env', 'version', 'k8s-mode']) {
  $(id).addEventListener('change', () => { loadFunctions(); run(); });
}
$('cost-limit').addEventListener('input', changed);
$('run').addEventListener('click', run);
$('why').addEventListener('click', explainExpression);
$('stop').addEventListener('click', () => {
  clearTimeout(timer);
  generation++;
  restarted = true;
  engine.stop();
  $('run').disabled = true;
  $('stop').disabled = true;
  outputOf(mode).dataset.state = 'stopped';
  setStatus('loading', 'stopped; restarting the engine…');
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.defaultPrevented) { e.preventDefault(); run(); }
});

// A shared link's state, if the page was opened with one.
if (location.hash.length > 1) {
  share().then((m) => m.decodeState(location.hash)).then((s) => { if (s) restore(s); if (engine.ready) run(); })
    .catch((e) => setStatus('error', `this link's state cannot be read: ${e.message}`));
} else {
  const ex = EXAMPLES.find((x) => x.mode === 'crd');
  // The CRD and admission panes start with the gallery's first example of each.
  loadPanes(ex);
  loadPanes(EXAMPLES.find((x) => x.mode === 'admission'));
}

function loadPanes(ex) {
  if (ex?.crd) { editors.crd.value = ex.crd.crd; editors.object.value = ex.crd.object; editors.old.value = ex.crd.old; }
  if (ex?.admission) {
    const a = ex.admission;
    editors.policies.value = a.policies; editors.bindings.value = a.bindings; editors.params.value = a.params;
    editors.request.value = a.request; editors['adm-object'].value = a.object; editors['adm-old'].value = a.oldObject;
    editors.namespace.value = a.namespace; editors.authorizer.value = a.authorizer;
  }
}
clearTimeout(timer);
