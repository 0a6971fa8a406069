import { Deps, ScvCommand } from "./run";

/** SCV: Resume Queue — queued prompts start again when the session is idle. */
export const resumeQueue: ScvCommand = {
  id: "scv.resumeQueue",
  async run({ server }: Deps) {
    await server.store.setPaused(false);
  },
};
