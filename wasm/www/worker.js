// The engine's thread: loads the wasm module once and answers {id, op, request} messages
// with {id, answer}, the answer being the API's JSON (see wasm/src/lib.rs). Two modules:
// pkg/kcel_wasm (expressions) at once, pkg/kcel_full (also CRD validation, admission and
// explain) the first time one of those is asked for. The time-zone table
// (pkg/tzdata.bin) is fetched only when an evaluation first names a zone; the request is
// then evaluated again with it.
import init, * as core from './pkg/kcel_wasm.js';

const started = performance.timeOrigin + performance.now(); // this script's start, for the page's timings

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

// The page hands over the compiled module (index.html compiles it while this worker starts);
// `{type: 'module'}` without one: fetch it here.
let moduleArrived;
const compiled = new Promise((resolve) => { moduleArrived = resolve; });
// Messages are handled one at a time, in order, even while a module or the zones load; the
// first ones wait for the module (the page asks for its first answer at once). A module that
// fails to load is reported; requests then answer with the error.
let queue = compiled.then((module) => init(module ? { module_or_path: module } : undefined)).then(
  () => self.postMessage({
    type: 'ready', version: core.version(), started, at: performance.timeOrigin + performance.now(),
  }),
  (err) => self.postMessage({ type: 'failed', message: String(err) }),
);
self.onmessage = ({ data }) => {
  if (data.type === 'module') {
    moduleArrived(data.module);
    return;
  }
  queue = queue.then(async () => {
    let answer;
    try {
      let module = core;
      // The first module has no catalog of extra libraries: requests naming some go to the full one.
      if (FULL_OPS.has(data.op) || data.request?.libraries?.length) {
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
