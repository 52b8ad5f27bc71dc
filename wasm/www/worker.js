// The engine's thread: loads the wasm module once and answers {id, op, request} messages
// with {id, answer}, the answer being the API's JSON (see wasm/src/lib.rs).
import init, { version, evaluate, check, functions, validateCrd, admit } from './pkg/kcel_wasm.js';

const ops = { evaluate, check, functions, validateCrd, admit };

await init();
self.onmessage = ({ data }) => {
  let answer;
  try {
    answer = JSON.parse(ops[data.op](JSON.stringify(data.request)));
  } catch (err) {
    answer = { error: { phase: 'internal', message: String(err) } };
  }
  self.postMessage({ type: 'answer', id: data.id, answer });
};
self.postMessage({ type: 'ready', version: version() });
