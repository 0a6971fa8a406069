// The proposed side of an edit approval's diff editor: the approval's unified
// diff (as runtime/tools/write.go writes it) applied to the file on disk.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { applyUnifiedDiff, parseEditSummary, StaleDiffError } from "../../src/client/proposedEdit";

/** GNU diff's unified diff with the runtime's a/ b/ headers. */
function gnuDiff(rel: string, before: string, after: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "scv-diff-"));
  writeFileSync(path.join(dir, "a"), before);
  writeFileSync(path.join(dir, "b"), after);
  let out = "";
  try {
    execFileSync("diff", ["-u", "a", "b"], { cwd: dir, encoding: "utf8" });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return out.replace(/^--- a\t.*\n\+\+\+ b\t.*\n/, `--- a/${rel}\n+++ b/${rel}\n`);
}

describe("parseEditSummary", () => {
  it("reads the file and diff of write_file and edit_file summaries", () => {
    assert.deepEqual(parseEditSummary("edit_file", "edit_file f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), {
      path: "f.txt",
      isNew: false,
      diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    });
    const created = parseEditSummary("write_file", "write_file new/deep/f.txt (new file)\n--- a/new/deep/f.txt\n+++ b/new/deep/f.txt\n@@ -0,0 +1 @@\n+hi\n");
    assert.deepEqual(created && { path: created.path, isNew: created.isNew }, { path: "new/deep/f.txt", isNew: true });
  });

  it("has nothing to show for other tools, errors, binary files, no changes and cut diffs", () => {
    assert.equal(parseEditSummary("shell", "shell ls\n--- a/x\n+++ b/x\n"), undefined);
    assert.equal(parseEditSummary("edit_file", "edit_file: old text not found in f.txt"), undefined);
    assert.equal(parseEditSummary("write_file", "write_file img.bin: replaces a binary or very large file with 4 bytes"), undefined);
    assert.equal(parseEditSummary("write_file", "write_file a.txt: no changes"), undefined);
    assert.equal(parseEditSummary("write_file", "write_file a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-tw\n[diff truncated]"), undefined);
  });
});

describe("applyUnifiedDiff", () => {
  const cases: Array<[string, string, string]> = [
    ["a change in the middle", "one\ntwo\nthree\n", "one\nTWO\nthree\n"],
    ["a new file", "", "hi\n"],
    ["a new file without a final newline", "", "x"],
    ["a final newline removed", "a\nb\n", "a\nb"],
    ["a final newline added", "a\nb", "a\nb\n"],
    ["everything replaced", "x\nx\nx\n", "y\ny\ny\n"],
    ["lines added at the end", "a\n", "a\nb\nc\n"],
    ["lines removed at the start", "a\nb\nc\n", "c\n"],
    ["the file emptied", "a\nb\n", ""],
    [
      "two hunks far apart",
      Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join(""),
      Array.from({ length: 30 }, (_, i) => (i === 1 ? "second\n" : i === 27 ? "twenty-eighth\nextra\n" : `line ${i + 1}\n`)).join(""),
    ],
  ];
  for (const [name, before, after] of cases) {
    it(name, () => assert.equal(applyUnifiedDiff(before, gnuDiff("f.txt", before, after)), after));
  }

  it("applies the runtime's own summaries", () => {
    const s = parseEditSummary("write_file", "write_file dir/x.txt (new file)\n--- a/dir/x.txt\n+++ b/dir/x.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n")!;
    assert.equal(applyUnifiedDiff("", s.diff), "x");
    const e = parseEditSummary("edit_file", "edit_file f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n func a() {\n-\treturn 1\n+\treturn 2\n }\n")!;
    assert.equal(applyUnifiedDiff("func a() {\n\treturn 1\n}\n", e.diff), "func a() {\n\treturn 2\n}\n");
  });

  it("refuses a diff the file no longer matches", () => {
    const diff = gnuDiff("f.txt", "one\ntwo\nthree\n", "one\nTWO\nthree\n");
    assert.throws(() => applyUnifiedDiff("one\n2\nthree\n", diff), StaleDiffError);
    assert.throws(() => applyUnifiedDiff("one\n", diff), StaleDiffError);
  });
});
