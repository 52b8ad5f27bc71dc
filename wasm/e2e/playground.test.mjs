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

async function openPlayground() {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('request', (r) => { if (!r.url().startsWith(base)) problems.push(`request: ${r.url()}`); });
  await page.goto(base);
  await page.locator('#status[data-state="ready"]').waitFor({ timeout: 20_000 });
  return { page, problems };
}

async function evaluate(page, expression, variables = '') {
  await page.locator('#vars').fill(variables);
  await page.locator('#expr').fill(expression);
  await page.locator('#run').click();
  await page.locator('#output:is([data-state="ok"], [data-state="error"])').waitFor({ timeout: 20_000 });
}

test('an expression shows its value, type and cost', { skip, timeout: 60_000 }, async (t) => {
  const { page, problems } = await openPlayground();
  // The default example (self from the variables pane) evaluates on load.
  await page.locator('#output[data-state="ok"]').waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('#value').textContent(), 'true');
  const first = await page.locator('body').getAttribute('data-first-answer-ms');
  t.diagnostic(`first evaluation shown ${first} ms after navigation`);

  await evaluate(page, '[1, 2, 3].map(x, x * 2)');
  assert.equal(await page.locator('#output').getAttribute('data-state'), 'ok');
  assert.equal(JSON.parse(await page.locator('#value').textContent()).join(','), '2,4,6');
  assert.equal(await page.locator('#type').textContent(), 'list(int)');
  assert.match(await page.locator('#cost').textContent(), /^43 \(estimate \d+ to \d+\)$/);

  await evaluate(page, "quantity(self.memory).isLessThan(quantity('2Gi'))", 'self: {memory: 1Gi}');
  assert.equal(await page.locator('#value').textContent(), 'true');
  assert.equal(await page.locator('#type').textContent(), 'bool');
  await page.screenshot({ path: path.join(shots, 'playground-value.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a parse error shows its line and column', { skip, timeout: 60_000 }, async () => {
  const { page, problems } = await openPlayground();
  await evaluate(page, '1 +\n  )');
  assert.equal(await page.locator('#output').getAttribute('data-state'), 'error');
  const text = await page.locator('#error').textContent();
  assert.match(text, /^parse error: 2:3: /);
  assert.match(text, /\n \|   \)\n \| \.\.\^$/);
  await page.screenshot({ path: path.join(shots, 'playground-parse-error.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the version selector changes which functions exist', { skip, timeout: 60_000 }, async () => {
  const { page, problems } = await openPlayground();
  await page.locator('#version').selectOption('1.32');
  await evaluate(page, "isSemver('1.2.3')");
  assert.equal(await page.locator('#output').getAttribute('data-state'), 'error');
  assert.match(await page.locator('#error').textContent(), /^check error: 1:9: undeclared reference to 'isSemver'/);
  await page.locator('#version').selectOption('1.33');
  await page.locator('#output[data-state="ok"]').waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('#value').textContent(), 'true');
  assert.deepEqual(problems, []);
  await page.close();
});
