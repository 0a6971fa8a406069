// Where a setting's value came from, in words a user can act on. VS Code
// merges User settings with the remote machine's settings in a remote window
// (code-server, Remote-SSH, WSL, containers), so "global" names both there.

/** The scope values of a setting, as `WorkspaceConfiguration.inspect` returns them. */
export interface SettingValues<T> {
  key: string;
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export interface SettingSource<T> {
  value: T | undefined;
  /** The settings file the value was read from, e.g. "Workspace settings". */
  from: string;
}

/** The value in effect and where it came from: the most specific scope that sets it wins. */
export function settingSource<T>(v: SettingValues<T>, remoteName?: string): SettingSource<T> {
  if (v.workspaceFolderValue !== undefined) return { value: v.workspaceFolderValue, from: "Folder settings (.vscode/settings.json)" };
  if (v.workspaceValue !== undefined) return { value: v.workspaceValue, from: "Workspace settings" };
  if (v.globalValue !== undefined) {
    return { value: v.globalValue, from: remoteName ? `User or Remote [${remoteName}] settings` : "User settings" };
  }
  return { value: v.defaultValue, from: "the default (no settings file sets it)" };
}

/**
 * Every scope that was read, for an error message: the user sees at once
 * whether the value they wrote arrived at all.
 */
export function describeSetting<T>(v: SettingValues<T>, remoteName?: string): string {
  const show = (x: T | undefined) => (x === undefined ? "unset" : JSON.stringify(x));
  const global = remoteName ? `User/Remote [${remoteName}]` : "User";
  const { value, from } = settingSource(v, remoteName);
  return (
    `${v.key} = ${show(value)} from ${from} ` +
    `(read: Folder ${show(v.workspaceFolderValue)}, Workspace ${show(v.workspaceValue)}, ${global} ${show(v.globalValue)}, default ${show(v.defaultValue)})`
  );
}
