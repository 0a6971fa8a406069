// Where a machine-scoped setting came from, as the error for a server that cannot start says it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeSetting, settingSource } from "../../src/client/settingSource";
import { traceSetting } from "../../src/client/traceLevel";

describe("settingSource", () => {
  const key = "scv.path";
  it("takes User settings in a local window, else the default", () => {
    assert.deepEqual(settingSource({ key, defaultValue: "scv" }), { value: "scv", from: "the default (no settings file sets it)" });
    assert.deepEqual(settingSource({ key, defaultValue: "scv", globalValue: "/u/scv" }), { value: "/u/scv", from: "User settings" });
  });

  it("names the remote machine's settings in a remote window", () => {
    assert.equal(settingSource({ key, globalValue: "/r/scv" }, "wsl").from, "Remote [wsl] settings");
  });

  it("lists what was read and the files that cannot set it", () => {
    assert.equal(
      describeSetting({ key, defaultValue: "scv", globalValue: "/u/scv" }),
      'scv.path = "/u/scv" from User settings (read: User settings "/u/scv", default "scv"; Workspace and Folder settings cannot set it)',
    );
    assert.equal(
      describeSetting({ key, defaultValue: "scv" }, "ssh-remote"),
      'scv.path = "scv" from the default (no settings file sets it) (read: Remote [ssh-remote] settings unset, default "scv"; User, Workspace and Folder settings cannot set it)',
    );
  });
});

describe("traceSetting", () => {
  it("knows off, messages and verbose, and reads anything else as off", () => {
    for (const v of ["off", "messages", "verbose"]) assert.equal(traceSetting(v), v);
    for (const v of [undefined, "", "Verbose", 1, { verbosity: "verbose" }]) assert.equal(traceSetting(v), "off");
  });
});
