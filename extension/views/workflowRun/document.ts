/**
 * The document of a workflow run's graph page: a strict content security policy (no network;
 * the one script, loaded from the extension's dist folder, and the one style only with the
 * document's nonce), the theme-following style, and an empty root the script draws into.
 */
import { escapeHtml } from '../jobPage/render';
import { RUN_STYLE } from './render';

/** `scriptUri`: the webview URI of dist/workflowRunPage.js; `cspSource`: the webview's own source. */
export function runPageDocument(title: string, scriptUri: string, cspSource: string, nonce: string): string {
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}' ${cspSource}; img-src data:;`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="viewport" content="width=device-width, initial-scale=1.0"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${RUN_STYLE}</style></head><body><main id="root"><p class="muted">Reading the run…</p></main><script nonce="${nonce}" src="${escapeHtml(scriptUri)}"></script></body></html>`;
}
