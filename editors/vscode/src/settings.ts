// The `scv.*` settings, read in one place.
import * as vscode from "vscode";
import { APPROVAL_POLICIES, ApprovalPolicy, DaemonMode } from "./client/protocol";
import { describeSetting } from "./client/settingSource";

export interface Settings {
  path: string;
  daemon: DaemonMode;
  approvalPolicy: ApprovalPolicy;
  model: string;
}

const DAEMON_MODES: readonly DaemonMode[] = ["auto", "never", "required"];

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration("scv");
  const daemon = c.get<string>("daemon", "auto");
  const policy = c.get<string>("approvalPolicy", "on-risk");
  return {
    path: c.get<string>("path", "scv").trim() || "scv",
    daemon: (DAEMON_MODES as readonly string[]).includes(daemon) ? (daemon as DaemonMode) : "auto",
    approvalPolicy: (APPROVAL_POLICIES as readonly string[]).includes(policy) ? (policy as ApprovalPolicy) : "on-risk",
    model: c.get<string>("model", "").trim(),
  };
}

/**
 * Which settings files `scv.path` was read from, for the error shown when the
 * server cannot start. `scv.path` has the default `window` scope so that User,
 * Remote, Workspace and Folder settings all apply in every window; a
 * machine-scoped setting is dropped from User settings in remote windows
 * (issue 14, bug 3). An untrusted workspace cannot set it (package.json
 * `capabilities.untrustedWorkspaces.restrictedConfigurations`).
 */
export function describePathSetting(): string {
  const inspected = vscode.workspace.getConfiguration("scv").inspect<string>("path");
  return inspected ? describeSetting(inspected, vscode.env.remoteName) : "scv.path could not be read";
}

/** Settings whose change needs a new server process. */
export function affectsServer(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration("scv.path") || e.affectsConfiguration("scv.daemon");
}
