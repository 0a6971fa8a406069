// HTML escaping of server and model text.
import { revealHidden } from "./revealHidden";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Text shown in the chat: its hidden characters revealed, then HTML-escaped. Attributes use escapeHtml. */
export function escapeText(text: string): string {
  return escapeHtml(revealHidden(text));
}
