/**
 * The job page's only script, as the text the document embeds (with the page's nonce). It stays
 * dumb on purpose: the extension renders every byte of the body (render.ts) and computes every
 * relative time (model.ts); the script swaps the body in, updates the times, keeps the output
 * scrolled to its end when it was there and the stack traces the user unfolded, and posts the
 * actions and the links of other jobs clicked. The message names come from messages.ts, declared once.
 */
import { MESSAGE } from './messages';

export const PAGE_SCRIPT = `(function () {
  const vscode = acquireVsCodeApi();
  const root = document.getElementById('root');
  function toEnd() {
    const out = document.getElementById('output');
    if (out) out.scrollTop = out.scrollHeight;
  }
  document.addEventListener('click', function (event) {
    const link = event.target instanceof Element ? event.target.closest('[data-job]') : null;
    if (link) {
      event.preventDefault();
      vscode.postMessage({ type: ${JSON.stringify(MESSAGE.openJob)}, id: link.getAttribute('data-job') });
      return;
    }
    const target = event.target instanceof Element ? event.target.closest('[data-action]') : null;
    if (!target) return;
    event.preventDefault();
    vscode.postMessage({ type: ${JSON.stringify(MESSAGE.action)}, action: target.getAttribute('data-action') });
  });
  window.addEventListener('message', function (event) {
    const message = event.data;
    if (!message || typeof message !== 'object') return;
    if (message.type === ${JSON.stringify(MESSAGE.render)}) {
      const out = document.getElementById('output');
      const atEnd = !out || out.scrollTop + out.clientHeight >= out.scrollHeight - 4;
      const open = Array.prototype.map.call(document.querySelectorAll('details[data-key][open]'), function (d) { return d.getAttribute('data-key'); });
      root.innerHTML = message.html;
      open.forEach(function (key) {
        const d = document.querySelector('details[data-key="' + key + '"]');
        if (d) d.open = true;
      });
      if (atEnd) toEnd();
    } else if (message.type === ${JSON.stringify(MESSAGE.times)}) {
      Object.keys(message.times).forEach(function (key) {
        const el = document.querySelector('[data-time="' + key + '"]');
        if (el) el.textContent = message.times[key];
      });
    }
  });
  toEnd();
})();`;
