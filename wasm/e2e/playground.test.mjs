// End-to-end: the playground in real headless Chromium (Debian's /usr/bin/chromium, driven
// by npm playwright-core; nothing is downloaded), served from 127.0.0.1 by python3's
// http.server on a free port. Run from wasm/ after ./build.sh: `node --test e2e/`.
// Screenshots go to ../target/e2e/. Without Chromium, playwright-core or www/pkg the tests
// are skipped with the reason, except under CI=true, where they fail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { INITIAL_LOAD_CAP, coldLoad } from './initial_load.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const www = path.join(here, '..', 'www');
const shots = path.join(here, '..', '..', 'target', 'e2e');
const chromiumPath = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch {
  chromium = null;
}
const missing = [
  !chromium && 'npm playwright-core (npm ci in wasm/)',
  !existsSync(chromiumPath) && `${chromiumPath} (apt-get install chromium)`,
  !existsSync(path.join(www, 'pkg', 'kcel_wasm_bg.wasm')) && 'www/pkg (run ./build.sh)',
].filter(Boolean);
if (missing.length && process.env.CI === 'true') {
  throw new Error(`e2e: missing ${missing.join(', ')}`);
}
const skip = missing.length ? `missing ${missing.join(', ')}` : false;
if (skip) console.log(`# e2e skipped: ${skip}`);

let server;
let browser;
let base;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function waitForServer(url) {
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(url)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`http.server did not answer at ${url}`);
}

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  const port = await freePort();
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', www],
    { stdio: 'ignore' });
  base = `http://127.0.0.1:${port}/`;
  await waitForServer(base);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    // playwright-core adds --headless and --no-sandbox; the rest keep Chromium off the network.
    args: ['--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
    timeout: 30_000,
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

// ---- helpers ----

async function openPlayground(url = base, { beforeLoad } = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await beforeLoad?.(page);
  const problems = [];
  const requests = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('request', (r) => {
    requests.push(r.url());
    if (!r.url().startsWith(base)) problems.push(`request: ${r.url()}`);
  });
  await page.goto(url);
  // Functional checks, not timings (the first answer's time has its own assertion): a
  // loaded 2-core machine can take more than 20 s to compile the module in a new page.
  await page.locator('#status[data-state="ready"]').waitFor({ timeout: 60_000 });
  return { page, problems, requests };
}

/** Replaces an editor's text (CodeMirror, by its container id) as typed or pasted input. */
async function setEditor(page, id, text, { typed = false } = {}) {
  await page.locator(`#${id} .cm-content`).click();
  // Keys, history and completion load with the first focus on an editor (editing.js).
  await page.locator(`#${id}[data-editing="ready"]`).waitFor({ timeout: 20_000 });
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  if (typed) await page.keyboard.type(text);
  else if (text !== '') await page.keyboard.insertText(text);
}

const editorText = (page, id) => page.locator(`#${id} .cm-content`).evaluate(
  (el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n'));

async function settled(page, output) {
  await page.waitForFunction((id) => {
    const s = document.getElementById(id).dataset.state;
    return s !== 'pending' && s !== 'idle';
  }, output, { timeout: 20_000 });
  // a debounced run may still be queued: wait it out
  await page.waitForTimeout(400);
  await page.waitForFunction((id) => document.getElementById(id).dataset.state !== 'pending', output, { timeout: 20_000 });
  return page.locator(`#${output}`).getAttribute('data-state');
}

async function evaluate(page, expression, variables) {
  if (variables !== undefined) await setEditor(page, 'vars', variables);
  await setEditor(page, 'expr', expression);
  await page.keyboard.press('Control+Enter');
  return settled(page, 'output');
}

async function example(page, title) {
  const value = await page.locator('#gallery option', { hasText: title }).first().getAttribute('value');
  await page.locator('#gallery').selectOption(value);
}

const shot = (page, name) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const opts = { skip, timeout: 90_000 };

// Issue #24's cap: what a cold load fetches before the first answer (the page, its script,
// the worker and the first module; not the full module, the editing chunk or the time zones,
// which load on first use) stays within 700,000 bytes gzip -9. Over it, this test fails.
test(`the initial load stays within ${INITIAL_LOAD_CAP.toLocaleString('en-US')} bytes gzip -9 (#24's cap)`, { ...opts, timeout: 150_000 }, async (t) => {
  const load = await coldLoad(browser, base);
  for (const f of load.files) t.diagnostic(`${f.url}: ${f.raw} raw, ${f.gzip} gzip -9`);
  const urls = load.files.map((f) => f.url);
  assert.ok(urls.some((u) => u.endsWith('kcel_wasm_bg.wasm')), `the first module was not loaded: ${urls}`);
  assert.ok(!urls.some((u) => u.includes('kcel_full')), `the full module was loaded initially: ${urls}`);
  const within = load.gzip <= INITIAL_LOAD_CAP;
  t.diagnostic(`initial load: ${load.gzip.toLocaleString('en-US')} bytes gzip -9 `
    + `(${load.raw.toLocaleString('en-US')} raw, ${load.files.length} files), `
    + `cap ${INITIAL_LOAD_CAP.toLocaleString('en-US')}: ${within ? 'PASS' : 'FAIL'}`);
  assert.ok(within, `initial load ${load.gzip} bytes gzip -9 exceeds the cap of ${INITIAL_LOAD_CAP}`);
});

// ---- the acceptance points ----

test('typing an expression shows its value, type and cost', opts, async (t) => {
  const { page, problems, requests } = await openPlayground();
  // The default example evaluates on load.
  assert.equal(await settled(page, 'output'), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'true');
  const first = Number(await page.locator('body').getAttribute('data-first-answer-ms'));
  t.diagnostic(`first evaluation shown ${first} ms after navigation`);
  assert.ok(first > 0 && first < 10_000, `first answer after ${first} ms`);
  t.diagnostic(`steps (ms after navigation): ${await page.locator('body').getAttribute('data-phases')}`);
  // CEL and YAML highlighted (www/src/highlight.js): a method's name, a string, a YAML key.
  assert.equal(await page.locator('#expr .tok-function').first().textContent(), 'startsWith');
  assert.equal(await page.locator('#expr .tok-string').first().textContent(), "'web'");
  assert.equal(await page.locator('#expr .tok-number').first().textContent(), '5');
  assert.equal(await page.locator('#vars .tok-propertyName').first().textContent(), 'self');
  // Nothing but the page's own files, and no time-zone table until a zone is named.
  assert.ok(!requests.some((u) => u.endsWith('tzdata.bin')), 'tzdata.bin is not loaded up front');
  // Nor the module with CRD validation and admission, nor the editing extras (completion,
  // error underlining), before they are needed.
  assert.ok(!requests.some((u) => u.includes('kcel_full')), 'kcel_full is not loaded up front');
  const chunks = requests.filter((u) => /\/pkg\/chunk-/.test(u)).length;

  await setEditor(page, 'vars', '');
  await setEditor(page, 'expr', '[1, 2, 3].map(x, x * 2)', { typed: true });
  assert.equal(requests.filter((u) => /\/pkg\/chunk-/.test(u)).length, chunks + 1, 'editing extras load on focus');
  assert.equal(await editorText(page, 'expr'), '[1, 2, 3].map(x, x * 2)');
  assert.equal(await settled(page, 'output'), 'ok');
  assert.deepEqual(JSON.parse(await page.locator('#value').textContent()), [2, 4, 6]);
  assert.equal(await page.locator('#type').textContent(), 'list(int)');
  // Actual cost as cel-go counts it, the estimate's range, the limit (Kubernetes' per call).
  assert.match(await page.locator('#cost').textContent(), /^43 \(estimate \d+ to \d+; limit 1,000,000\)$/);
  assert.equal(await page.locator('#cost').getAttribute('data-limit'), '1,000,000');

  assert.equal(await evaluate(page, "quantity(self.memory).isLessThan(quantity('2Gi'))", 'self: {memory: 1Gi}'), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'true');
  assert.equal(await page.locator('#type').textContent(), 'bool');
  await shot(page, 'expression-value');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a parse error is underlined at its line and column', opts, async () => {
  const { page, problems } = await openPlayground();
  assert.equal(await evaluate(page, '1 +\n  )'), 'error');
  const text = await page.locator('#error').textContent();
  assert.match(text, /^parse error: 2:3: /);
  assert.match(text, /\n \|   \)\n \| \.\.\^$/);
  // The editor underlines the ")" on line 2, column 3.
  const mark = page.locator('#expr .cm-lintRange-error');
  await mark.waitFor();
  assert.equal(await mark.textContent(), ')');
  const where = await mark.evaluate((el) => {
    const line = el.closest('.cm-line');
    const lines = [...line.parentElement.querySelectorAll('.cm-line')];
    const range = document.createRange();
    range.setStart(line, 0);
    range.setEndBefore(el);
    return { line: lines.indexOf(line) + 1, column: range.toString().length + 1 };
  });
  assert.deepEqual(where, { line: 2, column: 3 });
  await mark.hover();
  await page.locator('.cm-tooltip-lint').waitFor();
  assert.match(await page.locator('.cm-tooltip-lint').textContent(), /parse error: Syntax error/);
  await shot(page, 'expression-parse-error');
  // A check error is underlined too: the undeclared name.
  assert.equal(await evaluate(page, 'size(nope) > 1', ''), 'error');
  assert.match(await page.locator('#error').textContent(), /^check error: 1:6: undeclared reference to 'nope'/);
  assert.equal(await page.locator('#expr .cm-lintRange-error').textContent(), 'nope');
  assert.deepEqual(problems, []);
  await page.close();
});

test('completion offers functions, macros and variables from the environment', opts, async () => {
  const { page, problems } = await openPlayground();
  await setEditor(page, 'vars', 'self: {name: web}');
  await setEditor(page, 'expr', 'self.name.startsW', { typed: true });
  const popup = page.locator('.cm-tooltip-autocomplete');
  await popup.waitFor();
  assert.match(await popup.textContent(), /startsWith/);
  // Accept the selected option with Enter, keyboard only.
  // (CodeMirror ignores Enter for 75 ms after the list opens, against accidental accepts.)
  await page.locator('.cm-tooltip-autocomplete li[aria-selected=true]', { hasText: 'startsWith' }).waitFor();
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
  await page.keyboard.type("'w')");
  assert.equal(await editorText(page, 'expr'), "self.name.startsWith('w')");
  assert.equal(await settled(page, 'output'), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'true');
  // Macros after a dot, variables at the start.
  await setEditor(page, 'expr', '[1].exi', { typed: true });
  await popup.waitFor();
  assert.match(await popup.textContent(), /exists/);
  await page.keyboard.press('Escape');
  await setEditor(page, 'expr', 'se', { typed: true });
  await popup.waitFor();
  assert.match(await popup.textContent(), /self/);
  await page.keyboard.press('Escape');
  // Namespaced functions by their qualified name.
  await setEditor(page, 'expr', 'format.dns', { typed: true });
  await popup.waitFor();
  assert.match(await popup.textContent(), /format\.dns1123Label/);
  await shot(page, 'expression-completion');
  await page.keyboard.press('Escape');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the version selector changes which functions exist', opts, async () => {
  const { page, problems } = await openPlayground();
  await page.locator('#version').selectOption('1.30');
  assert.equal(await evaluate(page, "format.dns1123Label().validate('web').hasValue()", ''), 'error');
  assert.match(await page.locator('#error').textContent(), /^check error: 1:1: undeclared reference to 'format'/);
  await page.locator('#version').selectOption('1.31');
  assert.equal(await settled(page, 'output'), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'false');
  // Stored expressions get every library, whatever the version.
  await page.locator('#version').selectOption('1.30');
  assert.equal(await settled(page, 'output'), 'error');
  await page.locator('#k8s-mode').selectOption('stored');
  assert.equal(await settled(page, 'output'), 'ok');
  await page.locator('#k8s-mode').selectOption('new');
  await page.locator('#version').selectOption('1.32');
  assert.equal(await evaluate(page, "isSemver('1.2.3')"), 'error');
  await page.locator('#version').selectOption('1.33');
  assert.equal(await settled(page, 'output'), 'ok');
  await shot(page, 'expression-versions');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a CRD rule fails with the upstream text and passes after an edit', opts, async () => {
  const { page, problems } = await openPlayground();
  await example(page, 'CRD: replicas between min and max');
  assert.equal(await settled(page, 'crd-output'), 'invalid');
  assert.equal(await page.locator('#crd-errors li').first().textContent(),
    'spec.replicas: Invalid value: replicas of ada must be between minReplicas and maxReplicas');
  assert.match(await page.locator('#crd-rules').textContent(), /self\.minReplicas <= self\.replicas/);
  await shot(page, 'crd-rule-failing');
  const object = (await editorText(page, 'object')).replace('replicas: 7', 'replicas: 4');
  await setEditor(page, 'object', object);
  assert.equal(await settled(page, 'crd-output'), 'valid');
  assert.equal(await page.locator('#crd-errors li').count(), 0);
  assert.match(await page.locator('#crd-cost').textContent(), /per-object cost budget 10,000,000, used \d+/);
  await shot(page, 'crd-rule-passing');
  assert.deepEqual(problems, []);
  await page.close();
});

test('objects of built-in kinds beside the CRD\'s are validated too', opts, async () => {
  const { page, problems } = await openPlayground();
  await example(page, 'CRD: replicas between min and max');
  await setEditor(page, 'object', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n'
    + '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: "3"}\n');
  assert.equal(await settled(page, 'crd-output'), 'invalid');
  const errors = await page.locator('#crd-errors li').allTextContents();
  assert.match(errors[0], /^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  assert.equal(errors[1], 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot '
    + 'unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(await page.locator('#crd-cost').textContent(), '');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a transition rule compares with oldSelf', opts, async () => {
  const { page, problems } = await openPlayground();
  await example(page, 'CRD: transition rule with oldSelf');
  assert.equal(await settled(page, 'crd-output'), 'invalid');
  assert.equal(await page.locator('#crd-errors li').first().textContent(),
    'spec.owner: Invalid value: "bob": owner is immutable');
  await shot(page, 'crd-transition-rule');
  // Without an old object (a create) the transition rule does not run.
  await setEditor(page, 'old', '');
  assert.equal(await settled(page, 'crd-output'), 'valid');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a rule over the cost budget shows the factor message', opts, async () => {
  const { page, problems } = await openPlayground();
  await example(page, 'CRD: a messageExpression over the cost budget');
  assert.equal(await settled(page, 'crd-output'), 'error');
  // kube-apiserver's three errors for this mistake (tests/crd/18_cost_total.yaml).
  const errors = await page.locator('#crd-errors li').allTextContents();
  assert.deepEqual(errors, [
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
    'spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
  ]);
  await shot(page, 'crd-over-budget');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a ValidatingAdmissionPolicy denies with upstream text and warns with Warn', opts, async () => {
  const { page, problems } = await openPlayground();
  await example(page, 'Admission: replica limit with params');
  assert.equal(await settled(page, 'adm-output'), 'invalid');
  assert.equal(await page.locator('#adm-decision').textContent(),
    'Denied (422 Invalid): deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy \'replicalimit-policy.example.com\' with binding \'replicalimit-binding-test.example.com\' denied request: object.spec.replicas must be no greater than 3');
  assert.equal(await page.locator('#adm-warnings li').first().textContent(),
    'Warning: Validation failed for ValidatingAdmissionPolicy \'replicalimit-policy.example.com\' with binding \'replicalimit-binding-warn.example.com\': object.spec.replicas must be no greater than 3');
  assert.match(await page.locator('#adm-audit').textContent(), /validation\.policy\.admission\.k8s\.io\/validation_failure/);
  await shot(page, 'admission-deny-warn');
  // Within the limit: allowed.
  const object = (await editorText(page, 'adm-object')).replace('replicas: 5', 'replicas: 2');
  await setEditor(page, 'adm-object', object);
  assert.equal(await settled(page, 'adm-output'), 'allowed');
  assert.equal(await page.locator('#adm-decision').textContent(), 'Allowed');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the trace view shows the element an all() failed on', opts, async () => {
  const { page, problems } = await openPlayground();
  assert.equal(await evaluate(page, 'self.spec.ports.all(p, p.port > 1024)',
    'self:\n  spec:\n    ports: [{port: 8080}, {port: 80}, {port: 9090}]\n'), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'false');
  await page.locator('#why').click();
  await page.locator('#trace li').first().waitFor({ timeout: 20_000 });
  // The root, false, and below it the predicate once per element until the failing one.
  const root = page.locator('#trace > li').first();
  assert.equal(await root.locator(':scope > .step code').textContent(), 'self.spec.ports.all(p, p.port > 1024)');
  assert.equal(await root.locator(':scope > .step .value').textContent(), 'false');
  const predicates = root.locator(':scope > ul > li', { has: page.locator(':scope > .step code', { hasText: /^p\.port > 1024$/ }) });
  assert.equal(await predicates.count(), 2);
  assert.equal(await predicates.nth(0).locator(':scope > .step .value').textContent(), 'true');
  const failing = predicates.nth(1);
  assert.equal(await failing.getAttribute('class'), 'falsy');
  assert.equal(await failing.locator(':scope > .step .value').textContent(), 'false');
  // ... and the element it saw.
  assert.deepEqual(await failing.locator('li .step').allTextContents(), [
    'p.port → 80 cost 2', 'p → {"port": 80} cost 1']);
  assert.match(await page.locator('#trace-note').textContent(), /^\d+ steps; 2 false or failed$/);
  // Choosing a step selects its text in the editor.
  await failing.locator(':scope > .step').click();
  const selected = await page.evaluate(() => getSelection().toString());
  assert.equal(selected, 'p.port > 1024');
  await shot(page, 'trace-all-failed');
  // An edit clears the (now stale) trace.
  await setEditor(page, 'expr', 'self.spec.ports.all(p, p.port > 10)');
  assert.equal(await settled(page, 'output'), 'ok');
  assert.equal(await page.locator('#trace').isHidden(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the version selector applies to CRD rules and admission policies', opts, async () => {
  const { page, problems, requests } = await openPlayground();
  await example(page, 'CRD: replicas between min and max');
  assert.equal(await settled(page, 'crd-output'), 'invalid');
  // ext.Strings' format() is in Kubernetes' environment for new expressions since 1.29.
  const crd = (await editorText(page, 'crd')).replace('rule: self == oldSelf',
    "rule: \"self == '%s'.format([oldSelf])\"");
  await setEditor(page, 'crd', crd);
  assert.equal(await settled(page, 'crd-output'), 'invalid');
  await page.locator('#version').selectOption('1.28');
  assert.equal(await settled(page, 'crd-output'), 'error');
  assert.match((await page.locator('#crd-errors li').allTextContents()).join('\n'),
    /compilation failed: ERROR: <input>:1:20: undeclared reference to 'format'/);
  await shot(page, 'crd-version-1.28');
  // Rules already stored get every library.
  await page.locator('#k8s-mode').selectOption('stored');
  assert.equal(await settled(page, 'crd-output'), 'invalid');
  await page.locator('#k8s-mode').selectOption('new');
  await page.locator('#version').selectOption('1.29');
  assert.equal(await settled(page, 'crd-output'), 'invalid');

  await page.locator('#tab-admission').click();
  assert.equal(await settled(page, 'adm-output'), 'invalid');
  const policy = (await editorText(page, 'policies')).replace(
    /messageExpression: .*/, "messageExpression: \"'at most %d replicas'.format([params.maxReplicas])\"");
  await setEditor(page, 'policies', policy);
  assert.equal(await settled(page, 'adm-output'), 'invalid');
  assert.match(await page.locator('#adm-decision').textContent(), /denied request: at most \d+ replicas$/);
  await page.locator('#version').selectOption('1.28');
  assert.equal(await settled(page, 'adm-output'), 'invalid');
  assert.match((await page.locator('#adm-errors li').allTextContents()).join('\n'),
    /^policy: spec\.validations\[0\]\.messageExpression: .*undeclared reference to 'format'/);
  await shot(page, 'admission-version-1.28');
  // The CRD and admission modes loaded the second module once.
  assert.equal(requests.filter((u) => u.endsWith('/pkg/kcel_full_bg.wasm')).length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a share link restores the whole state', opts, async () => {
  const { page, problems } = await openPlayground();
  await page.locator('#version').selectOption('1.33');
  await page.locator('#cost-limit').fill('5000');
  await evaluate(page, "self.tags.filter(t, t.startsWith('x')).size()", 'self: {tags: [x1, z1, x2]}');
  assert.equal(await page.locator('#value').textContent(), '2');
  await page.locator('#share').click();
  await page.waitForFunction(() => document.getElementById('share').dataset.url);
  const url = await page.locator('#share').getAttribute('data-url');
  assert.match(url, /#s=[A-Za-z0-9_-]+$/);
  const other = await openPlayground(url);
  assert.equal(await settled(other.page, 'output'), 'ok');
  assert.equal(await editorText(other.page, 'expr'), "self.tags.filter(t, t.startsWith('x')).size()");
  assert.equal(await editorText(other.page, 'vars'), 'self: {tags: [x1, z1, x2]}');
  assert.equal(await other.page.locator('#version').inputValue(), '1.33');
  assert.equal(await other.page.locator('#cost-limit').inputValue(), '5000');
  assert.equal(await other.page.locator('#value').textContent(), '2');
  // The other modes' panes come back too.
  await example(page, 'Admission: replica limit with params');
  await settled(page, 'adm-output');
  await page.locator('#share').click();
  await page.waitForFunction((old) => document.getElementById('share').dataset.url !== old, url);
  const third = await openPlayground(await page.locator('#share').getAttribute('data-url'));
  assert.equal(await third.page.locator('#tab-admission').getAttribute('aria-selected'), 'true');
  assert.equal(await settled(third.page, 'adm-output'), 'invalid');
  await shot(third.page, 'share-link-restored');
  assert.deepEqual([...problems, ...other.problems, ...third.problems], []);
  await Promise.all([page.close(), other.page.close(), third.page.close()]);
});

test('the engine starts when its module arrives after the page has claimed the worker', opts, async () => {
  // index.html compiles the module and hands it to the worker it started; the page script
  // claims that worker as soon as it loads. Held back, the module arrives after the claim
  // (as on a loaded machine, where this once left a page loading for good).
  let held = 0;
  const { page, problems } = await openPlayground(base, {
    beforeLoad: (p) => p.route('**/pkg/kcel_wasm_bg.wasm', async (route) => {
      held++;
      await p.waitForFunction(() => window.kcelWorker === undefined, null, { timeout: 30_000 });
      await route.continue();
    }),
  });
  assert.equal(held, 1);
  assert.equal(await settled(page, 'output'), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'true');
  assert.deepEqual(problems, []);
  await page.close();
});

test('every gallery example gives its documented result', opts, async (t) => {
  const { EXAMPLES } = await import('../www/src/examples.js');
  const { page, problems } = await openPlayground();
  const titles = await page.locator('#gallery option').allTextContents();
  assert.deepEqual(titles.slice(1), EXAMPLES.map((e) => e.title));
  assert.ok(EXAMPLES.length >= 15, `${EXAMPLES.length} examples`);
  const matches = (text, expected) => (expected instanceof RegExp ? expected.test(text) : text === expected);
  for (const ex of EXAMPLES) {
    await example(page, ex.title);
    const output = { expression: 'output', crd: 'crd-output', admission: 'adm-output' }[ex.mode];
    const state = await settled(page, output);
    const text = await page.locator(`#${output}`).textContent();
    t.diagnostic(`${ex.title}: ${state}`);
    if (ex.mode === 'expression') {
      assert.equal(state, 'ok', `${ex.title}: ${text}`);
      const value = JSON.stringify(JSON.parse(await page.locator('#value').textContent()));
      assert.ok(matches(value, ex.expect.value), `${ex.title}: ${value}`);
    } else if (ex.mode === 'crd') {
      const errors = await page.locator('#crd-errors').textContent();
      assert.ok(matches(errors, ex.expect.errors), `${ex.title}: ${errors}`);
    } else {
      const decision = await page.locator('#adm-decision').textContent();
      assert.ok(matches(decision, ex.expect.decision), `${ex.title}: ${decision}`);
    }
  }
  await shot(page, 'gallery-last');
  assert.deepEqual(problems, []);
  await page.close();
});

test('time zones load on first use', opts, async () => {
  const { page, problems, requests } = await openPlayground();
  await setEditor(page, 'decls', 't: timestamp');
  assert.equal(await evaluate(page, "t.getHours('America/Los_Angeles')", 't: 2024-07-01T18:30:00Z'), 'ok');
  assert.equal(await page.locator('#value').textContent(), '11');
  assert.equal(requests.filter((u) => u.endsWith('/pkg/tzdata.bin')).length, 1);
  assert.match(await page.locator('#status').textContent(), /time zones loaded \(IANA \d{4}[a-z]\)/);
  // An absorbed lookup still gets the data: the answer is the one the zone gives.
  assert.equal(await evaluate(page, "t.getHours('Asia/Kolkata') == 0 || t.getMinutes('Asia/Kolkata') == 0"), 'ok');
  assert.equal(await page.locator('#value').textContent(), 'true');
  assert.equal(await evaluate(page, "t.getHours('Mars/Olympus')"), 'error');
  assert.match(await page.locator('#error').textContent(), /unknown time zone Mars\/Olympus/);
  await shot(page, 'time-zones');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a runaway is stopped by its cost limit, or by Stop, and the page stays responsive', opts, async () => {
  const { page, problems } = await openPlayground();
  const runaway = 'l.all(a, l.all(b, l.all(c, l.all(d, l.all(e, l.all(f, l.all(g, l.all(h, true))))))))';
  const vars = 'l: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
  assert.equal(await evaluate(page, runaway, vars), 'error');
  assert.match(await page.locator('#error').textContent(), /operation cancelled: actual cost limit exceeded/);
  // Without a limit it runs on; the page still answers and Stop ends it.
  await page.locator('#cost-limit').fill('0');
  await page.locator('#run').click();
  await page.waitForTimeout(500);
  assert.equal(await page.locator('#output').getAttribute('data-state'), 'pending');
  await setEditor(page, 'decls', 'x: int');   // typing works while the engine is busy
  assert.equal(await editorText(page, 'decls'), 'x: int');
  await page.locator('#stop').click();
  await page.locator('#status[data-state="ready"]').waitFor({ timeout: 20_000 });
  // The new engine does not run the runaway again by itself.
  await page.waitForTimeout(500);
  assert.equal(await page.locator('#output').getAttribute('data-state'), 'stopped');
  await setEditor(page, 'decls', '');
  await page.locator('#cost-limit').fill('');
  assert.equal(await evaluate(page, '1 + 1'), 'ok');
  assert.equal(await page.locator('#value').textContent(), '2');
  await shot(page, 'runaway-stopped');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the playground works from the keyboard alone', opts, async () => {
  const { page, problems } = await openPlayground();
  await settled(page, 'output');
  const focused = () => page.evaluate(() => {
    const a = document.activeElement;
    return a.closest('[id]')?.id ?? a.tagName;
  });
  const tabTo = async (id) => {
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await focused()) === id) return;
    }
    assert.fail(`Tab never reached #${id}`);
  };
  // The mode tabs: arrow keys move between them.
  await tabTo('tab-expression');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'tab-crd');
  assert.equal(await page.locator('#mode-crd').isVisible(), true);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.locator('#mode-expression').isVisible(), true);
  // Into the expression editor, type, evaluate with Ctrl+Enter; Tab leaves the editor.
  await tabTo('expr');
  await page.locator('#expr[data-editing="ready"]').waitFor({ timeout: 20_000 });
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2 * 21');
  await page.keyboard.press('Control+Enter');
  assert.equal(await settled(page, 'output'), 'ok');
  assert.equal(await page.locator('#value').textContent(), '42');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'vars');
  assert.equal(await editorText(page, 'expr'), '2 * 21');
  await shot(page, 'keyboard-only');
  assert.deepEqual(problems, []);
  await page.close();
});
