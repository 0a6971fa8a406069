// The status bar item (idle / running / waiting for approval / N queued) and the
// context keys menus depend on.
import * as vscode from "vscode";
import { mcpLines, summarize } from "./client/reducer";
import { usageText } from "./client/summary";
import type { SessionState } from "./client/state";
import type { ScvServer } from "./server";

/** What the status bar says for a state, with "ctx 42% · 12.3k tok"; the tooltip ends with the session's MCP servers. */
export function statusText(state: SessionState | undefined): { text: string; tooltip: string } {
  const session = sessionText(state);
  const usage = usageText(state);
  const base = usage ? { ...session, text: `${session.text} · ${usage}` } : session;
  const lines = mcpLines(state);
  return lines.length ? { ...base, tooltip: `${base.tooltip}\n\nMCP servers:\n${lines.join("\n")}` } : base;
}

function sessionText(state: SessionState | undefined): { text: string; tooltip: string } {
  const s = summarize(state);
  const queued = s.queued ? ` · ${s.queued} queued${s.paused ? " (paused)" : ""}` : s.paused ? " · paused" : "";
  switch (s.kind) {
    case "none":
      return { text: "$(comment-discussion) SCV", tooltip: "SCV: no session — click for SCV's actions" };
    case "closed":
      return { text: "$(circle-slash) SCV: closed", tooltip: "The SCV session has ended" };
    case "approval":
      return { text: `$(bell-dot) SCV: waiting for approval${queued}`, tooltip: "SCV is waiting for your approval — click for SCV's actions" };
    case "running":
      return { text: `$(sync~spin) SCV: running${queued}`, tooltip: "SCV is working — click for SCV's actions" };
    case "idle":
      return { text: `$(check) SCV: idle${queued}`, tooltip: "SCV is idle — click for SCV's actions" };
  }
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  private readonly sub: { dispose(): void };

  constructor(server: ScvServer) {
    this.item.name = "SCV";
    this.item.command = "scv.statusMenu";
    this.update(server.store.state);
    this.item.show();
    this.sub = server.store.onDidChange((s) => this.update(s));
  }

  private update(state: SessionState | undefined): void {
    const { text, tooltip } = statusText(state);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = summarize(state).kind === "approval" ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    this.setContext("scv.running", state?.status === "running");
    this.setContext("scv.paused", state?.queue.paused ?? false);
    this.setContext("scv.hasSession", state !== undefined && !state.closed);
  }

  private readonly contextKeys = new Map<string, boolean>();

  /** Sets a context key only when it changes: the state changes with every delta. */
  private setContext(key: string, value: boolean): void {
    if (this.contextKeys.get(key) === value) return;
    this.contextKeys.set(key, value);
    void vscode.commands.executeCommand("setContext", key, value);
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }
}
