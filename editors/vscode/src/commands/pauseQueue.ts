import { Deps, ScvCommand } from "./run";

/** SCV: Pause Queue — the queue is kept but no queued prompt starts. */
export const pauseQueue: ScvCommand = {
  id: "scv.pauseQueue",
  async run({ server }: Deps) {
    await server.store.setPaused(true);
  },
};
