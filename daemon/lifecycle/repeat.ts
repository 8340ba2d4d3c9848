/**
 * A task run again and again: each run starts `intervalMs` after the previous one settled (never
 * two at once, however long one takes), until stopped. The timer does not keep the process alive.
 */
export class Repeat {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    /** One run; a rejection is the task's own business (it should log it), and the next run comes all the same. */
    private readonly task: () => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.task()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}
