// Where a setting came from, as the error for a server that cannot start says it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeSetting, settingSource } from "../../src/client/settingSource";
import { traceSetting } from "../../src/client/traceLevel";

describe("settingSource", () => {
  const key = "scv.path";
  it("takes the most specific scope that sets the value", () => {
    assert.deepEqual(settingSource({ key, defaultValue: "scv" }), { value: "scv", from: "the default (no settings file sets it)" });
    assert.deepEqual(settingSource({ key, defaultValue: "scv", globalValue: "/u/scv" }), { value: "/u/scv", from: "User settings" });
    assert.equal(settingSource({ key, globalValue: "/u/scv", workspaceValue: "/w/scv" }).from, "Workspace settings");
    assert.equal(
      settingSource({ key, globalValue: "/u/scv", workspaceValue: "/w/scv", workspaceFolderValue: "/f/scv" }).value,
      "/f/scv",
    );
  });

  it("names User and Remote settings together in a remote window", () => {
    assert.equal(settingSource({ key, globalValue: "/r/scv" }, "wsl").from, "User or Remote [wsl] settings");
  });

  it("lists every scope that was read", () => {
    assert.equal(
      describeSetting({ key, defaultValue: "scv", workspaceValue: "./bin/scv" }),
      'scv.path = "./bin/scv" from Workspace settings (read: Folder unset, Workspace "./bin/scv", User unset, default "scv")',
    );
  });
});

describe("traceSetting", () => {
  it("knows off, messages and verbose, and reads anything else as off", () => {
    for (const v of ["off", "messages", "verbose"]) assert.equal(traceSetting(v), v);
    for (const v of [undefined, "", "Verbose", 1, { verbosity: "verbose" }]) assert.equal(traceSetting(v), "off");
  });
});
