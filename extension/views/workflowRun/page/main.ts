/**
 * The graph page's script, bundled by esbuild with dagre into dist/workflowRunPage.js and loaded
 * by the page with its nonce. It lays out each run it is sent (layout.ts), draws it (render.ts),
 * ticks the running jobs' times every second, and posts the clicks: a node opens its job's page
 * (also with Enter or Space on a focused node), a button runs its action. It keeps the graph's
 * scroll position across updates.
 */
import { layoutRun } from '../layout';
import { RUN_MESSAGE, type FromRunPage, type RunPageUpdate } from '../messages';
import { elapsedText, renderRunBody } from '../render';

declare function acquireVsCodeApi(): { postMessage(message: FromRunPage): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
/** The extension's clock less the page's: a running job's time is the extension's. */
let skew = 0;

function post(message: FromRunPage): void {
  vscode.postMessage(message);
}

function draw(update: RunPageUpdate): void {
  if (!root) return;
  skew = update.now - Date.now();
  const canvas = root.querySelector('.canvas');
  const scroll = canvas ? { left: canvas.scrollLeft, top: canvas.scrollTop } : null;
  const focused = document.activeElement instanceof Element ? document.activeElement.getAttribute('data-job') : null;
  root.innerHTML = renderRunBody(update.run, layoutRun(update.run), update.now, update.actions, update.gone);
  const drawn = root.querySelector('.canvas');
  if (drawn && scroll) {
    drawn.scrollLeft = scroll.left;
    drawn.scrollTop = scroll.top;
  }
  if (focused) root.querySelector<SVGGElement>(`[data-job="${CSS.escape(focused)}"]`)?.focus();
}

function tick(): void {
  const now = Date.now() + skew;
  for (const el of document.querySelectorAll('[data-since]')) {
    const since = Number(el.getAttribute('data-since'));
    if (Number.isFinite(since)) el.textContent = `running ${elapsedText(now - since)}`;
  }
}

function activate(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  const node = target.closest('[data-job]');
  const id = node?.getAttribute('data-job');
  if (id) {
    post({ type: RUN_MESSAGE.openJob, id });
    return true;
  }
  const button = target.closest('button[data-action]');
  const action = button?.getAttribute('data-action');
  if (button instanceof HTMLButtonElement && !button.disabled && (action === 'retry' || action === 'cancel')) {
    post({ type: RUN_MESSAGE.action, action });
    return true;
  }
  return false;
}

document.addEventListener('click', (event) => {
  if (activate(event.target)) event.preventDefault();
});
document.addEventListener('keydown', (event) => {
  if ((event.key === 'Enter' || event.key === ' ') && event.target instanceof Element && event.target.matches('[data-job]') && activate(event.target)) event.preventDefault();
});
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data;
  if (typeof message === 'object' && message !== null && Reflect.get(message, 'type') === RUN_MESSAGE.run) draw(message as RunPageUpdate);
});
setInterval(tick, 1000);
post({ type: RUN_MESSAGE.ready });
