// What the chat's buttons do beyond approving: the model and policy pickers,
// "Always allow", the turn diffs and undo, opening files named in answers, and
// copying or inserting code blocks.
import path from "node:path";
import * as vscode from "vscode";
import { APPROVAL_POLICIES, type ApprovalPolicy } from "../client/protocol";
import { allowRuleDetail, allowRuleQuestion } from "../client/heldRule";
import type { SessionStore } from "../client/store";
import type { TurnDiffs } from "../turnDiff";

const POLICY_HELP: Record<ApprovalPolicy, string> = {
  never: "Deny write/exec/network tools without asking",
  "on-risk": "Ask before write/exec/network tools",
  always: "Ask before every tool",
  auto: "Run every tool without asking",
};

export async function pickModel(store: SessionStore): Promise<void> {
  const current = store.state?.model;
  const list = store.listModels();
  const items = list.then(({ models, error }) => {
    const picks: vscode.QuickPickItem[] = models.map((m) => ({
      label: m.id,
      description: [m.id === current ? "current" : "", m.source === "config" ? "configured" : "from the provider"].filter(Boolean).join(" · "),
    }));
    if (error) picks.push({ label: "", kind: vscode.QuickPickItemKind.Separator }, { label: `$(warning) The provider's list failed: ${error}`, description: "" });
    return picks;
  });
  const pick = await vscode.window.showQuickPick(items, { placeHolder: `Model of this session (now ${current ?? "default"}); it applies from the next model call` });
  if (!pick || !pick.label || pick.label.startsWith("$(warning)") || pick.label === current) return;
  const r = await store.configure({ model: pick.label });
  void vscode.window.setStatusBarMessage(`SCV: model ${r.model}`, 3000);
}

export async function pickPolicy(store: SessionStore): Promise<void> {
  const current = store.state?.approvalPolicy;
  const pick = await vscode.window.showQuickPick(
    APPROVAL_POLICIES.map((p) => ({ label: p, description: POLICY_HELP[p] + (p === current ? " (current)" : "") })),
    { placeHolder: "Approval policy of this session" },
  );
  if (!pick || pick.label === current) return;
  const r = await store.configure({ approvalPolicy: pick.label as ApprovalPolicy });
  void vscode.window.setStatusBarMessage(`SCV: approval policy ${r.approvalPolicy}`, 3000);
}

/** "Always allow <rule>": confirmed in a modal, then approved with the rule written to the user's config. */
export async function allowAlways(store: SessionStore, approvalId: string): Promise<void> {
  const approval = store.state?.approvals.find((a) => a.approvalId === approvalId);
  const rule = approval?.suggestedRule;
  if (!approval || !rule) {
    void vscode.window.showInformationMessage("SCV: this approval was already answered.");
    return;
  }
  const yes = approval.confirmsRule ? "Confirm and Always Allow" : "Always Allow";
  const pick = await vscode.window.showWarningMessage(
    allowRuleQuestion(approval),
    { modal: true, detail: allowRuleDetail(approval) },
    yes,
  );
  if (pick !== yes) return;
  const r = await store.allowAlways(approvalId, rule);
  if (r === false) void vscode.window.showInformationMessage("SCV: this approval was already answered in another window.");
  else void vscode.window.setStatusBarMessage(`SCV: allowed ${rule}${r.ruleAddedTo ? ` (in ${r.ruleAddedTo})` : ""}`, 5000);
}

/** Undoes a turn (and the later ones) after confirmation; conflicts are shown under the turn with "Revert anyway". */
export async function undoTurn(store: SessionStore, turnId: string, force: boolean): Promise<void> {
  const s = store.state;
  const turns = s?.transcript.filter((e) => e.kind === "turn") ?? [];
  const at = turns.findIndex((t) => t.kind === "turn" && t.turnId === turnId);
  const later = at >= 0 ? turns.length - at - 1 : 0;
  const yes = force ? "Revert Anyway" : "Undo";
  const detail = force
    ? "Files changed since the turn are overwritten with their content before it."
    : `Files this turn${later ? ` and the ${later} later turn${later === 1 ? "" : "s"}` : ""} changed get their content from before it; the model forgets ${later ? "those turns" : "the turn"}.`;
  const pick = await vscode.window.showWarningMessage(force ? "Revert the conflicting files anyway?" : "Undo this turn?", { modal: true, detail }, yes);
  if (pick !== yes) return;
  const r = await store.revert(turnId, force);
  if (r.conflicts.length) {
    void vscode.window.showWarningMessage(`SCV: ${r.conflicts.length} file(s) changed since the turn and were not undone; see the chat.`);
  } else {
    void vscode.window.setStatusBarMessage(`SCV: undone, ${r.reverted.length} file(s) restored`, 5000);
  }
}

export async function openTurnDiff(store: SessionStore, diffs: TurnDiffs, turnId: string, file: string): Promise<void> {
  await diffs.open(store, turnId, file);
}

/** The file a path in an answer names: relative paths are in the session's folder. */
export function resolveAnswerPath(cwd: string | undefined, p: string): string | undefined {
  if (path.isAbsolute(p)) return p;
  if (p.startsWith("~")) return undefined;
  const base = cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return base ? path.join(base, p) : undefined;
}

export async function openAnswerFile(store: SessionStore, p: string, line?: number): Promise<void> {
  const file = resolveAnswerPath(store.state?.cwd, p);
  const uri = file ? vscode.Uri.file(file) : undefined;
  const exists = uri ? await vscode.workspace.fs.stat(uri).then(() => true, () => false) : false;
  if (!uri || !exists) {
    void vscode.window.showWarningMessage(`SCV: ${p} is not a file in the workspace.`);
    return;
  }
  const at = line ? new vscode.Position(line - 1, 0) : undefined;
  await vscode.window.showTextDocument(uri, { preview: true, selection: at ? new vscode.Range(at, at) : undefined });
}

export async function useCode(action: "copy" | "insert", text: string): Promise<void> {
  if (action === "copy") {
    await vscode.env.clipboard.writeText(text);
    void vscode.window.setStatusBarMessage("SCV: code copied", 2000);
    return;
  }
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showWarningMessage("SCV: open an editor to insert the code at its cursor.");
    return;
  }
  await editor.edit((b) => editor.selections.forEach((sel) => b.replace(sel, text)));
}
