/** Text as HTML, for the job page and the views that draw with it (render.ts re-exports it). */

/** Text as HTML text or attribute value: nothing in it is markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
