// The messages the chat webview posts, checked: the webview shows model text, so
// what it sends is treated as input, not trusted to have the right shape.
import type { PromptContext } from "./protocol";
import { attachmentLabel } from "./renderTurn";

export type ChatMessage =
  | { type: "ready" }
  | { type: "send"; prompt: string; steer: boolean }
  | { type: "action"; action: string; approvalId?: string; turnId?: string; path?: string }
  | { type: "openFile"; path: string; line?: number }
  | { type: "code"; action: "copy" | "insert"; text: string }
  | { type: "pickAttachment" }
  | { type: "removeAttachment"; index: number };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The message, or undefined when it is not one the view understands. */
export function parseChatMessage(raw: unknown): ChatMessage | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.type) {
    case "ready":
    case "pickAttachment":
      return { type: m.type };
    case "send": {
      const prompt = str(m.prompt);
      return prompt ? { type: "send", prompt, steer: m.steer === true } : undefined;
    }
    case "action": {
      const action = str(m.action);
      if (!action) return undefined;
      return { type: "action", action, approvalId: str(m.approvalId), turnId: str(m.turnId), path: str(m.path) };
    }
    case "openFile": {
      const path = str(m.path);
      if (!path) return undefined;
      const line = typeof m.line === "number" && Number.isInteger(m.line) && m.line > 0 ? m.line : undefined;
      return line ? { type: "openFile", path, line } : { type: "openFile", path };
    }
    case "code": {
      const text = str(m.text);
      const action = m.action === "copy-code" ? "copy" : m.action === "insert-code" ? "insert" : undefined;
      return text !== undefined && action ? { type: "code", action, text } : undefined;
    }
    case "removeAttachment":
      return typeof m.index === "number" && Number.isInteger(m.index) && m.index >= 0 ? { type: "removeAttachment", index: m.index } : undefined;
    default:
      return undefined;
  }
}

/**
 * What `scv.attachFile` answered, as prompt attachments: one or several
 * `{uri, range?, text?}` (uri a string or anything whose toString is the URI).
 */
export function toAttachments(picked: unknown): PromptContext[] {
  const items = Array.isArray(picked) ? picked : picked === undefined || picked === null ? [] : [picked];
  const out: PromptContext[] = [];
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const { uri, range, text } = item as { uri?: unknown; range?: PromptContext["range"]; text?: unknown };
    const u = typeof uri === "string" ? uri : uri && typeof uri === "object" ? String(uri) : undefined;
    if (!u) continue;
    const c: PromptContext = { uri: u };
    if (range) c.range = { start: { ...range.start }, end: { ...range.end } };
    if (typeof text === "string") c.text = text;
    out.push(c);
  }
  return out;
}

/** The chips the composer shows for the attachments. */
export function attachmentChips(context: PromptContext[]): Array<{ label: string; title: string }> {
  return context.map((c) => ({ label: attachmentLabel(c), title: c.uri }));
}
