// How VS Code layers settings files and which of them may set a setting of a
// given `scope`, for the stand-in `vscode` module. It follows VS Code's own
// tables (src/vs/workbench/services/configuration/common/configuration.ts:
// LOCAL_MACHINE_SCOPES, REMOTE_MACHINE_SCOPES, WORKSPACE_SCOPES,
// FOLDER_SCOPES): a value in a file that may not hold the setting is dropped
// when the file is read, so neither `get` nor `inspect` sees it. The scopes come
// from package.json, so a test exercises what the manifest declares.
import { readFileSync } from "node:fs";
import path from "node:path";

export type Scope = "application" | "machine" | "window" | "resource" | "language-overridable" | "machine-overridable";

/** The settings files a window reads, weakest first. */
export interface SettingsFiles {
  /** User settings (on the local machine; in code-server, `User/settings.json`). */
  user: Record<string, unknown>;
  /** Remote settings (`Machine/settings.json`); read only in a remote window. */
  remote: Record<string, unknown>;
  /** The workspace's `.vscode/settings.json` (a single-folder workspace: also its Folder settings). */
  workspace: Record<string, unknown>;
}

const LOCAL_WINDOW_USER: readonly Scope[] = ["application", "machine", "window", "resource", "language-overridable", "machine-overridable"];
const REMOTE_WINDOW_USER: readonly Scope[] = ["application", "window", "resource", "language-overridable"];
const REMOTE: readonly Scope[] = ["machine", "window", "resource", "language-overridable", "machine-overridable"];
const WORKSPACE: readonly Scope[] = ["window", "resource", "language-overridable", "machine-overridable"];

const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
const declared: Record<string, { scope?: Scope; default?: unknown }> = manifest.contributes.configuration.properties;

/** The scope package.json declares for key; VS Code's default is `window`. */
export function scopeOf(key: string): Scope {
  return declared[key]?.scope ?? "window";
}

function pick(file: Record<string, unknown>, key: string, allowed: readonly Scope[]): unknown {
  return key in file && allowed.includes(scopeOf(key)) ? file[key] : undefined;
}

/** What `WorkspaceConfiguration.inspect` reports: each layer as VS Code read it. */
export function inspectSetting(
  files: SettingsFiles,
  key: string,
  remote: boolean,
): { key: string; defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown } {
  const user = pick(files.user, key, remote ? REMOTE_WINDOW_USER : LOCAL_WINDOW_USER);
  const remoteValue = remote ? pick(files.remote, key, REMOTE) : undefined;
  // In a remote window User and Remote settings merge into one "global" value, Remote winning.
  const globalValue = remoteValue !== undefined ? remoteValue : user;
  return { key, defaultValue: declared[key]?.default, globalValue, workspaceValue: pick(files.workspace, key, WORKSPACE) };
}

/** What `WorkspaceConfiguration.get` returns: the most specific layer that holds the value. */
export function effectiveSetting(files: SettingsFiles, key: string, remote: boolean): unknown {
  const v = inspectSetting(files, key, remote);
  return v.workspaceValue !== undefined ? v.workspaceValue : v.globalValue;
}
