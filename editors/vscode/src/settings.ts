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

/**
 * The settings in effect, each read with `get`, which applies the scope
 * package.json declares; never from `inspect()`, whose workspace values a
 * scope would not let apply.
 */
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
 * Which settings file `scv.path` was read from, for the error shown when the
 * server cannot start. `scv.path` and `scv.daemon` are machine settings and
 * `scv.approvalPolicy` an application setting (package.json): VS Code never
 * applies a workspace's value for them (defect 8 of issue 26), and
 * `readSettings` reads them only through `get`, which honours that.
 */
export function describePathSetting(): string {
  const inspected = vscode.workspace.getConfiguration("scv").inspect<string>("path");
  return inspected ? describeSetting(inspected, vscode.env.remoteName) : "scv.path could not be read";
}

/** Settings whose change needs a new server process. */
export function affectsServer(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration("scv.path") || e.affectsConfiguration("scv.daemon");
}
