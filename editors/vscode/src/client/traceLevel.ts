// `scv.trace.server`, read in one place: what the setting says, not what the
// output channel's log level happens to be.

export type TraceSetting = "off" | "messages" | "verbose";
export const TRACE_SETTINGS: readonly TraceSetting[] = ["off", "messages", "verbose"];

/** The setting's value, `off` for anything it does not know. */
export function traceSetting(value: unknown): TraceSetting {
  return (TRACE_SETTINGS as readonly unknown[]).includes(value) ? (value as TraceSetting) : "off";
}
