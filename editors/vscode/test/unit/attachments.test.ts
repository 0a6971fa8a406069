// What waits for the next prompt after the `@` picker.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_PENDING_ATTACHMENTS, parseGitFiles, PendingAttachments, withAttachments } from "../../src/client/attachments";

describe("PendingAttachments", () => {
  it("goes with one prompt, before the prompt's own context, then is empty", () => {
    const p = new PendingAttachments();
    p.add({ uri: "file:///w/a.ts" });
    const own = [{ uri: "file:///w/b.ts", range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } } }];
    assert.deepEqual(withAttachments(p, own), [{ uri: "file:///w/a.ts" }, ...own]);
    assert.equal(p.size, 0);
    assert.equal(withAttachments(p), undefined, "no context at all travels absent");
  });

  it("keeps a file attached twice once, and at most MAX_PENDING_ATTACHMENTS", () => {
    const p = new PendingAttachments();
    p.add({ uri: "file:///w/a.ts" });
    p.add({ uri: "file:///w/a.ts" });
    assert.equal(p.size, 1);
    for (let i = 0; i < MAX_PENDING_ATTACHMENTS + 3; i++) p.add({ uri: `file:///w/${i}` });
    const taken = p.take();
    assert.equal(taken.length, MAX_PENDING_ATTACHMENTS);
    assert.equal(taken.at(-1)?.uri, `file:///w/${MAX_PENDING_ATTACHMENTS + 2}`, "the oldest go first");
  });

  it("reads git ls-files -z output", () => {
    assert.deepEqual(parseGitFiles("a.ts\0dir/with space.md\0"), ["a.ts", "dir/with space.md"]);
    assert.deepEqual(parseGitFiles(""), []);
  });
});
