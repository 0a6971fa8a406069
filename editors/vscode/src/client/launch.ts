// How the server process is started: shared by the extension and the tests that
// spawn the real binary, so both run the same command line.
import type { DaemonMode } from "./protocol";

export interface LaunchSettings {
  /** The scv executable (`scv.path`). */
  path: string;
  /** `scv.daemon`. */
  daemon: DaemonMode;
}

export interface Launch {
  command: string;
  args: string[];
}

/**
 * `scv lsp --daemon=<mode>`. Speaks LSP framing on stdin/stdout. The caller must
 * not add `--stdio` (vscode-languageclient does so for TransportKind.stdio, and
 * scv lsp refuses unknown flags): stdio is its only transport.
 */
export function serverLaunch(s: LaunchSettings): Launch {
  return { command: s.path, args: ["lsp", `--daemon=${s.daemon}`] };
}
