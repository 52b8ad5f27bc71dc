// Measures the playground as a browser loads it (BENCHMARKS.md, "Browser module"): every
// file of the initial load with its raw and gzip -9 size, and the time from navigation to
// the first answer shown, over RUNS cold loads (a new browser context each, so nothing is
// cached) in headless Chromium. Run from wasm/ after ./build.sh: `node e2e/measure.mjs`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { coldLoad } from './initial_load.mjs';

const runs = Number(process.env.RUNS ?? 7);
const www = process.env.WWW ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'www');
const port = await new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port: p } = s.address(); s.close(() => resolve(p)); });
});
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', www], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}/`;
for (let i = 0; i < 100; i++) {
  try { if ((await fetch(base)).ok) break; } catch { /* not yet */ }
  await new Promise((r) => setTimeout(r, 100));
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
  args: ['--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const times = [];
const phaseRuns = []; // per load: {script, editors, engine, answer} ms after navigation
let first;
try {
  for (let run = 0; run < runs; run++) {
    const load = await coldLoad(browser, base);
    times.push(load.firstAnswerMs);
    if (load.phases) phaseRuns.push(load.phases); // (a page before they were recorded has none)
    first ??= load;
  }
} finally {
  await browser.close();
  server.kill();
}
console.log('| file | raw bytes | gzip -9 |\n| --- | ---: | ---: |');
for (const f of first.files) {
  console.log(`| ${f.url} | ${f.raw.toLocaleString('en-US')} | ${f.gzip.toLocaleString('en-US')} |`);
}
console.log(`| **initial load** | **${first.raw.toLocaleString('en-US')}** | **${first.gzip.toLocaleString('en-US')}** |`);
times.sort((a, b) => a - b);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nfirst answer after navigation, ${runs} cold loads: ${[...times].sort((a, b) => a - b).join(', ')} ms; median ${median(times)} ms`);
// Where the time goes (medians): the page's script starts, its editors are made, the worker's
// module is ready, the answer is shown.
const steps = Object.keys(phaseRuns[0] ?? {}).map((k) => `${k} ${median(phaseRuns.map((p) => p[k]))}`);
console.log(`medians (ms after navigation): ${steps.join(', ')}`);
