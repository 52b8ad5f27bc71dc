// The engine in its Web Worker: requests as promises, answers matched by id. A runaway
// evaluation is stopped by its cost limit inside the engine; `stop()` terminates the worker
// outright and starts a new one (pending requests then answer {stopped: true}).

export class Engine {
  constructor({ onReady, onStatus }) {
    this.onReady = onReady;
    this.onStatus = onStatus;
    this.pending = new Map();
    this.answered = new Map(); // answers that came before their request was claimed
    this.nextId = 0;
    this.start();
  }

  start() {
    this.ready = false;
    // The first worker is started by index.html before this script loads (see there).
    const early = globalThis.kcelWorker;
    globalThis.kcelWorker = undefined;
    // The request index.html sent at once (id 0), as JSON text [op, request], until claimed.
    this.first = early?.first;
    this.worker = early ?? new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    // A new worker (after Stop) gets the module index.html compiled (the first one has it).
    if (!early) {
      const worker = this.worker;
      (globalThis.kcelModule ?? Promise.resolve()).then((module) => worker.postMessage({ type: 'module', module }));
    }
    this.worker.onmessage = ({ data }) => {
      if (data.type === 'ready') {
        this.ready = true;
        this.version = data.version;
        // When the module was ready, in this page's milliseconds since navigation.
        const since = (at) => Math.round(at - performance.timeOrigin);
        this.onReady?.(data.version, { worker: since(data.started), engine: since(data.at) });
      } else if (data.type === 'failed') {
        this.onStatus?.(`the engine failed to load: ${data.message}`, 'error');
      } else if (data.type === 'zones') {
        this.onStatus?.(`time zones loaded (IANA ${data.version})`);
      } else if (data.type === 'answer') {
        const resolve = this.pending.get(data.id);
        this.pending.delete(data.id);
        if (resolve) resolve(data.answer);
        else this.answered.set(data.id, data.answer);
      }
    };
    this.worker.onerror = (e) => this.onStatus?.(`the engine failed: ${e.message}`, 'error');
    // Replayed after the caller has its Engine (its callbacks may use it).
    const replay = early?.early ?? [];
    if (replay.length) setTimeout(() => { for (const m of replay) this.worker.onmessage(m); });
  }

  /** Sends `request` to the API function `op`; resolves with its JSON answer. */
  call(op, request) {
    // The first request, when it is the one index.html already sent: its answer.
    if (this.first !== undefined && this.first === JSON.stringify([op, request])) {
      this.first = undefined;
      if (this.answered.has(0)) {
        const answer = this.answered.get(0);
        this.answered.delete(0);
        return Promise.resolve(answer);
      }
      return new Promise((resolve) => this.pending.set(0, resolve));
    }
    this.first = undefined;
    this.answered.delete(0);
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
    this.answered.clear();
    this.start();
  }
}
