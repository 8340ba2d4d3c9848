/**
 * The `http` executor: payload `{url, method?, headers?, body?}`, sent with fetch. A 2xx response
 * completes the job with `{status, headers, body}` (body cut at RESPONSE_BODY_LIMIT characters);
 * 4xx other than 408/429 fails it permanently (asking again will not help); 5xx, 408, 429,
 * timeouts and connection errors fail it so that it is retried with backoff. A status the job's
 * retry rule names in `on` is retried whatever its class. A failed answer's Retry-After (seconds
 * or an HTTP date) sets when the next attempt starts, up to the job's backoff cap. The job's
 * timeoutMs bounds the whole exchange, body included.
 */
import { httpPayload, type HttpPayload } from '../../shared/domain/rules/payloads';
import { withPayload, type Executor, type ExecutorContext, type Outcome, type RunningJob, type StopReason } from './types';

export const RESPONSE_BODY_LIMIT = 64 * 1024;

export const runHttp: Executor = (context) =>
  withPayload(
    'http',
    () => httpPayload(context.job.payload, 'payload'),
    (payload) => new HttpRun(context, payload),
  );

class HttpRun implements RunningJob {
  readonly done: Promise<Outcome>;
  private readonly abort = new AbortController();
  private stopReason: StopReason | null = null;

  constructor(
    private readonly context: ExecutorContext,
    payload: HttpPayload,
  ) {
    this.done = this.run(payload);
  }

  stop(reason: StopReason): void {
    if (this.stopReason !== null) return;
    this.stopReason = reason;
    this.abort.abort();
  }

  private async run(payload: HttpPayload): Promise<Outcome> {
    const { job, output } = this.context;
    const started = Date.now();
    const timer = setTimeout(() => this.stop('timeout'), job.timeoutMs);
    const target = `${payload.method} ${payload.url.href}`;
    try {
      const response = await fetch(payload.url, {
        method: payload.method,
        headers: payload.headers,
        body: payload.body,
        signal: this.abort.signal,
        redirect: 'follow',
      });
      const { text, truncated } = await readLimited(response);
      const ms = Date.now() - started;
      output.log(`${target} → ${response.status} ${response.statusText} in ${ms} ms`);
      const status = response.status;
      if (status >= 200 && status < 300) {
        const headers: Record<string, string> = {};
        response.headers.forEach((value, key) => (headers[key] = value));
        return { kind: 'completed', result: { status, headers, body: text, ...(truncated ? { truncated: true } : {}) } };
      }
      // A status the job's retry rule names in `on` is retried even where asking again would
      // not help by default: the rule is the job's own word on it.
      const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429 && !(job.retry?.on?.httpStatus?.includes(status) ?? false);
      const snippet = text.length > 0 ? `: ${text.slice(0, 500)}` : '';
      const failed: Outcome = { kind: 'failed', error: `${target} answered ${status} ${response.statusText}${snippet}`, httpStatus: status, permanent };
      const retryAfterMs = permanent ? null : parseRetryAfter(response.headers.get('retry-after'), Date.now());
      if (retryAfterMs === null) return failed;
      // Honoured up to the job's backoff cap: a server asking for a day does not hold the job longer than its own backoff would.
      const waitMs = Math.min(retryAfterMs, job.backoff.capMs);
      output.log(`Retry-After asks for ${Math.ceil(retryAfterMs / 1000)} s; the next attempt waits ${Math.ceil(waitMs / 1000)} s (the backoff cap is ${Math.ceil(job.backoff.capMs / 1000)} s).`);
      return { ...failed, retryAt: Date.now() + waitMs };
    } catch (error) {
      if (this.stopReason === 'cancel') return { kind: 'cancelled' };
      if (this.stopReason === 'shutdown') return { kind: 'stopped' };
      if (this.stopReason === 'timeout') return { kind: 'failed', error: `${target} timed out after ${job.timeoutMs} ms.` };
      const reason = describeFetchError(error);
      output.log(`${target} failed: ${reason}`);
      return { kind: 'failed', error: `${target} failed: ${reason}` };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A Retry-After header's wait in ms from `now`: delay-seconds, or an HTTP date (RFC 9110
 * 10.2.3); null when absent or unreadable. A date in the past is no wait.
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

async function readLimited(response: Response): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), truncated: false };
    text += decoder.decode(value, { stream: true });
    if (text.length > RESPONSE_BODY_LIMIT) {
      await reader.cancel();
      return { text: text.slice(0, RESPONSE_BODY_LIMIT), truncated: true };
    }
  }
}

/** fetch hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error) return `${error.message} (${cause.message})`;
  return error.message;
}
