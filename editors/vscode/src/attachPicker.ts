// The `@` picker: a fuzzy QuickPick of the workspace's files — what git tracks
// or would track (so .gitignore is honoured), else what VS Code's search sees
// (files.exclude and search.exclude) — and `@selection`, the active editor's
// selection. The pick waits in PendingAttachments for the next prompt.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as vscode from "vscode";
import { parseGitFiles } from "./client/attachments";
import type { PromptContext } from "./client/protocol";
import { selectionContext } from "./commands/sendSelection";

/** The picker lists at most this many files (VS Code's QuickPick filters them as you type). */
export const MAX_PICKER_FILES = 20_000;
/** Bound on `git ls-files`. */
const GIT_TIMEOUT_MS = 10_000;

/** Relative paths of a folder's files, honouring .gitignore when the folder is in a git repository. */
export async function workspaceFiles(folder: vscode.WorkspaceFolder): Promise<string[]> {
  if (folder.uri.scheme === "file") {
    try {
      const { stdout } = await promisify(execFile)("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
        cwd: folder.uri.fsPath,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      });
      return parseGitFiles(stdout).slice(0, MAX_PICKER_FILES);
    } catch {
      // Not a git repository, or no git: VS Code's own search below.
    }
  }
  const excludes = Object.entries({
    ...vscode.workspace.getConfiguration("files", folder.uri).get<Record<string, boolean>>("exclude", {}),
    ...vscode.workspace.getConfiguration("search", folder.uri).get<Record<string, boolean>>("exclude", {}),
  })
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
  const exclude = excludes.length ? `{${excludes.join(",")}}` : undefined;
  const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, "**/*"), exclude, MAX_PICKER_FILES);
  return uris.map((u) => vscode.workspace.asRelativePath(u, false));
}

interface Item extends vscode.QuickPickItem {
  context: PromptContext[];
}

/** Shows the picker; resolves to the context picked, or undefined when dismissed. */
export async function pickAttachment(): Promise<{ label: string; context: PromptContext[] } | undefined> {
  const items: Item[] = [];
  const editor = vscode.window.activeTextEditor;
  const selection = editor ? selectionContext(editor) : [];
  if (editor && selection.length) {
    items.push({
      label: "@selection",
      description: `${vscode.workspace.asRelativePath(editor.document.uri)} (${selection.length} range${selection.length > 1 ? "s" : ""})`,
      context: selection,
    });
  }
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const rel of await workspaceFiles(folder)) {
      const uri = vscode.Uri.joinPath(folder.uri, rel);
      const slash = rel.lastIndexOf("/");
      items.push({ label: rel.slice(slash + 1), description: slash > 0 ? rel.slice(0, slash) : undefined, context: [{ uri: uri.toString() }] });
    }
  }
  const pick = await vscode.window.showQuickPick(items, {
    placeHolder: "Attach a file (or @selection) to the next prompt",
    matchOnDescription: true,
  });
  return pick && { label: pick.description && pick.label !== "@selection" ? `${pick.description}/${pick.label}` : pick.label, context: pick.context };
}
