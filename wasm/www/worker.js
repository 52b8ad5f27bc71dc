// The engine's thread: loads the wasm module once and answers {id, op, request} messages
// with {id, answer}, the answer being the API's JSON (see wasm/src/lib.rs). The time-zone
// table (pkg/tzdata.bin) is fetched only when an evaluation first names a zone; the request
// is then evaluated again with it.
import init, {
  version, evaluate, check, functions, validateCrd, admit, loadTimeZones, timeZonesWanted,
} from './pkg/kcel_wasm.js';

const ops = { evaluate, check, functions, validateCrd, admit };

async function loadZones() {
  const response = await fetch(new URL('./pkg/tzdata.bin', import.meta.url));
  if (!response.ok) throw new Error(`tzdata.bin: HTTP ${response.status}`);
  const answer = JSON.parse(loadTimeZones(new Uint8Array(await response.arrayBuffer())));
  if (answer.error) throw new Error(`tzdata.bin: ${answer.error.message}`);
  return answer;
}

function run(op, request) {
  return JSON.parse(ops[op](JSON.stringify(request)));
}

await init();
// Messages are handled one at a time, in order, even while the zones load.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  queue = queue.then(async () => {
    let answer;
    try {
      answer = run(data.op, data.request);
      if (timeZonesWanted()) {
        const zones = await loadZones();
        self.postMessage({ type: 'zones', ...zones });
        answer = run(data.op, data.request);
      }
    } catch (err) {
      answer = { error: { phase: 'internal', message: String(err) } };
    }
    self.postMessage({ type: 'answer', id: data.id, answer });
  });
};
self.postMessage({ type: 'ready', version: version() });
