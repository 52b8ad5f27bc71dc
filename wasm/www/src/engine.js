// The engine in its Web Worker: requests as promises, answers matched by id. A runaway
// evaluation is stopped by its cost limit inside the engine; `stop()` terminates the worker
// outright and starts a new one (pending requests then answer {stopped: true}).

export class Engine {
  constructor({ onReady, onStatus }) {
    this.onReady = onReady;
    this.onStatus = onStatus;
    this.pending = new Map();
    this.nextId = 0;
    this.start();
  }

  start() {
    this.ready = false;
    // The first worker is started by index.html before this script loads (see there).
    const early = globalThis.kcelWorker;
    globalThis.kcelWorker = undefined;
    this.worker = early ?? new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => {
      if (data.type === 'ready') {
        this.ready = true;
        this.version = data.version;
        this.onReady?.(data.version);
      } else if (data.type === 'zones') {
        this.onStatus?.(`time zones loaded (IANA ${data.version})`);
      } else if (data.type === 'answer') {
        const resolve = this.pending.get(data.id);
        this.pending.delete(data.id);
        resolve?.(data.answer);
      }
    };
    this.worker.onerror = (e) => this.onStatus?.(`the engine failed: ${e.message}`, 'error');
    // Replayed after the caller has its Engine (its callbacks may use it).
    const replay = early?.early ?? [];
    if (replay.length) setTimeout(() => { for (const m of replay) this.worker.onmessage(m); });
  }

  /** Sends `request` to the API function `op`; resolves with its JSON answer. */
  call(op, request) {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, op, request });
    });
  }

  get busy() { return this.pending.size > 0; }

  stop() {
    this.worker.terminate();
    for (const resolve of this.pending.values()) resolve({ stopped: true });
    this.pending.clear();
    this.start();
  }
}
