// The playground's initial load as a browser fetches it: one cold load (a new browser context,
// nothing cached) recording every response from navigation until the first answer is shown
// (and 300 ms more), each file's raw and gzip -9 size. Shared by measure.mjs (BENCHMARKS.md,
// "Browser module") and the size check in playground.test.mjs.
import { spawnSync } from 'node:child_process';

/** Issue #24's cap on the initial load, gzip -9 bytes: the check fails above it. */
export const INITIAL_LOAD_CAP = 700_000;

/** The size of `bytes` compressed by `gzip -9` (as BENCHMARKS.md counts them). */
export function gzipSize(bytes) {
  const z = spawnSync('gzip', ['-9c'], { input: bytes, maxBuffer: 1 << 26 });
  if (z.status !== 0) throw new Error(`gzip -9c failed: ${z.stderr}`);
  return z.stdout.length;
}

/**
 * Loads `base` cold in `browser` and returns what it fetched before the first answer:
 * `{ files: [{ url, raw, gzip }], raw, gzip, firstAnswerMs, phases }` (`phases`: when each
 * step of the start happened, ms after navigation, or null on a page that does not say).
 */
export async function coldLoad(browser, base) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const loaded = [];
    page.on('response', async (r) => {
      try { loaded.push({ url: r.url().slice(base.length) || 'index.html', body: await r.body() }); } catch { /* none */ }
    });
    await page.goto(base);
    // A generous wait: this records sizes, not time (a loaded machine compiles the module slowly).
    await page.waitForFunction(() => document.body.dataset.firstAnswerMs, null, { timeout: 90_000 });
    const firstAnswerMs = Number(await page.evaluate(() => document.body.dataset.firstAnswerMs));
    const phases = await page.evaluate(() => document.body.dataset.phases);
    await page.waitForTimeout(300);
    const files = loaded.map(({ url, body }) => ({ url, raw: body.length, gzip: gzipSize(body) }));
    return {
      files,
      raw: files.reduce((n, f) => n + f.raw, 0),
      gzip: files.reduce((n, f) => n + f.gzip, 0),
      firstAnswerMs,
      phases: phases ? JSON.parse(phases) : null,
    };
  } finally {
    await context.close();
  }
}
