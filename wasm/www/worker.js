// The engine's thread: loads the wasm module once and answers {id, op, request} messages
// with {id, answer}, the answer being the API's JSON (see wasm/src/lib.rs). Two modules:
// pkg/kcel_wasm (expressions) at once, pkg/kcel_full (also CRD validation, admission and
// explain) the first time one of those is asked for. The time-zone table
// (pkg/tzdata.bin) is fetched only when an evaluation first names a zone; the request is
// then evaluated again with it.
import init, * as core from './pkg/kcel_wasm.js';

const FULL_OPS = new Set(['validateCrd', 'admit', 'explain']);
let full; // the second module, once loaded
let zones; // the zone table's bytes, once fetched

async function loadFull() {
  const module = await import('./pkg/kcel_full.js');
  await module.default();
  return module;
}

async function zoneTable() {
  if (!zones) {
    const response = await fetch(new URL('./pkg/tzdata.bin', import.meta.url));
    if (!response.ok) throw new Error(`tzdata.bin: HTTP ${response.status}`);
    zones = new Uint8Array(await response.arrayBuffer());
  }
  return zones;
}

function run(module, op, request) {
  return JSON.parse(module[op](JSON.stringify(request)));
}

await init();
// Messages are handled one at a time, in order, even while a module or the zones load.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  queue = queue.then(async () => {
    let answer;
    try {
      let module = core;
      if (FULL_OPS.has(data.op)) {
        full ??= await loadFull();
        module = full;
      }
      answer = run(module, data.op, data.request);
      if (module.timeZonesWanted()) {
        const loaded = JSON.parse(module.loadTimeZones(await zoneTable()));
        if (loaded.error) throw new Error(`tzdata.bin: ${loaded.error.message}`);
        self.postMessage({ type: 'zones', ...loaded });
        answer = run(module, data.op, data.request);
      }
    } catch (err) {
      answer = { error: { phase: 'internal', message: String(err) } };
    }
    self.postMessage({ type: 'answer', id: data.id, answer });
  });
};
self.postMessage({ type: 'ready', version: core.version() });
