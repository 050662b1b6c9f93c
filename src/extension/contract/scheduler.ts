/**
 * When contract validation runs, shared by the text editor's diagnostics and the form: once per pause
 * in typing (a trailing-edge debounce per document), and never more than one validation of a document
 * in flight. A change during a validation runs one more once it is back, on the text as it is then, so
 * a slow validation on a busy machine never builds a queue of stale texts. No `vscode` import: the
 * bench drives exactly this code.
 */

/**
 * Typing pauses shorter than this do not re-validate. docs/performance.md wants diagnostics ≤ 150 ms after the
 * last keystroke; the `yaml` library validates a 500-line contract in ≈ 10 ms (p95 ≈ 90 ms on a 2-core
 * machine at load 12), so 50 ms leaves the rest to the validation and a late timer.
 */
export const VALIDATION_DELAY_MS = 50;

interface KeyState<R> {
  timer?: ReturnType<typeof setTimeout>;
  /** The validation in flight. */
  running?: Promise<R | undefined>;
  /** Callers waiting for a validation that starts after the running one (the text changed since it started). */
  again?: { promise: Promise<R | undefined>; resolve: (r: R | undefined) => void };
}

export class ValidationScheduler<R> {
  private readonly keys = new Map<string, KeyState<R>>();
  private disposed = false;

  /** `validate(key)` reads the document's text when it is called and resolves with the result. */
  constructor(
    private readonly validate: (key: string) => Promise<R | undefined>,
    private readonly delayMs: number = VALIDATION_DELAY_MS,
  ) {}

  /** After a change: validate once typing pauses. */
  schedule(key: string): void {
    const s = this.state(key);
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void this.now(key);
    }, this.delayMs);
  }

  /** Validate now (cancelling a scheduled run): resolves with a validation of the text as it is at this call or later. */
  now(key: string): Promise<R | undefined> {
    if (this.disposed) return Promise.resolve(undefined);
    const s = this.state(key);
    if (s.timer !== undefined) {
      clearTimeout(s.timer);
      s.timer = undefined;
    }
    if (s.running === undefined) return this.start(key, s);
    if (s.again === undefined) {
      let resolve!: (r: R | undefined) => void;
      const promise = new Promise<R | undefined>((r) => (resolve = r));
      s.again = { promise, resolve };
    }
    return s.again.promise;
  }

  /** Whether a validation is scheduled or running for `key`. */
  busy(key: string): boolean {
    const s = this.keys.get(key);
    return s !== undefined && (s.timer !== undefined || s.running !== undefined || s.again !== undefined);
  }

  /** The document is gone: drop its timer (a running validation finishes; nobody runs after it). */
  forget(key: string): void {
    const s = this.keys.get(key);
    if (s?.timer !== undefined) clearTimeout(s.timer);
    s?.again?.resolve(undefined);
    this.keys.delete(key);
  }

  dispose(): void {
    this.disposed = true;
    for (const key of [...this.keys.keys()]) this.forget(key);
  }

  private state(key: string): KeyState<R> {
    let s = this.keys.get(key);
    if (!s) this.keys.set(key, (s = {}));
    return s;
  }

  private start(key: string, s: KeyState<R>): Promise<R | undefined> {
    const running = this.validate(key).catch(() => undefined);
    s.running = running;
    void running.then(() => {
      if (this.keys.get(key) !== s) return;
      s.running = undefined;
      const again = s.again;
      s.again = undefined;
      if (again) void this.start(key, s).then(again.resolve);
    });
    return running;
  }
}
