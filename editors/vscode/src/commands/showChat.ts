import { Deps, ScvCommand } from "./run";

/** SCV: Show Chat — what the status bar item runs. */
export const showChat: ScvCommand = {
  id: "scv.showChat",
  async run({ chat }: Deps) {
    await chat.reveal();
  },
};
