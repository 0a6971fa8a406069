import { Deps, ScvCommand } from "./run";

/** SCV: Show Output — the "SCV" channel with the server's stderr and the trace. */
export const showOutput: ScvCommand = {
  id: "scv.showOutput",
  async run({ output }: Deps) {
    output.show(true);
  },
};
