// Where a machine-scoped setting's value came from, in words a user can act on.
// VS Code reads such a setting from User settings in a local window and from
// the remote machine's settings in a remote one (code-server, Remote-SSH, WSL,
// containers); Workspace and Folder settings cannot hold it.

/** The values of a setting, as `WorkspaceConfiguration.inspect` returns them. */
export interface SettingValues<T> {
  key: string;
  defaultValue?: T;
  globalValue?: T;
}

export interface SettingSource<T> {
  value: T | undefined;
  /** The settings file the value was read from, e.g. "Remote [ssh-remote] settings". */
  from: string;
}

/** The settings file a machine-scoped setting is read from in this window. */
export function machineSettingsFile(remoteName?: string): string {
  return remoteName ? `Remote [${remoteName}] settings` : "User settings";
}

/** The value in effect and where it came from. */
export function settingSource<T>(v: SettingValues<T>, remoteName?: string): SettingSource<T> {
  if (v.globalValue !== undefined) return { value: v.globalValue, from: machineSettingsFile(remoteName) };
  return { value: v.defaultValue, from: "the default (no settings file sets it)" };
}

/**
 * Every value that was read, for an error message: the user sees at once
 * whether the value they wrote arrived at all, and where it has to go.
 */
export function describeSetting<T>(v: SettingValues<T>, remoteName?: string): string {
  const show = (x: T | undefined) => (x === undefined ? "unset" : JSON.stringify(x));
  const { value, from } = settingSource(v, remoteName);
  return (
    `${v.key} = ${show(value)} from ${from} ` +
    `(read: ${machineSettingsFile(remoteName)} ${show(v.globalValue)}, default ${show(v.defaultValue)}; ` +
    `${remoteName ? "User, " : ""}Workspace and Folder settings cannot set it)`
  );
}
