import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionInfo } from "../../src/client/protocol";
import { collectSessions, formatAge, PICKER_MAX_SESSIONS, sessionRow } from "../../src/client/sessionRows";

const now = new Date("2026-11-30T12:00:00Z");

describe("session picker rows", () => {
  it("a stored session: title, state, turns, queued, age from updatedAt; cwd and id below", () => {
    const s: SessionInfo = {
      sessionId: "s-9", cwd: "/work/demo", state: "stored", title: "Fix the greeting", turns: 4, queued: 2,
      createdAt: "2026-11-01T00:00:00Z", updatedAt: "2026-11-28T11:00:00Z",
    };
    assert.deepEqual(sessionRow(s, now), {
      label: "Fix the greeting",
      description: "stored · 4 turns · 2 queued · 2 days ago",
      detail: "/work/demo · s-9",
      sessionId: "s-9",
      title: "Fix the greeting",
    });
  });

  it("an older server's row (no title, turns, updatedAt): first known prompt, else the id; age from createdAt", () => {
    const s: SessionInfo = { sessionId: "s-1", cwd: "/w", model: "m", state: "idle", queued: 0, clients: 1, createdAt: "2026-11-30T11:55:00Z" };
    assert.equal(sessionRow(s, now, "\n  explain this file\nplease").label, "explain this file");
    const bare = sessionRow(s, now);
    assert.equal(bare.label, "s-1");
    assert.equal(bare.description, "idle · 5 min ago");
    assert.equal(bare.title, undefined);
  });

  it("one turn is singular; a long title is cut", () => {
    const s: SessionInfo = { sessionId: "x", cwd: "/w", state: "running", turns: 1, title: "a".repeat(200) };
    const row = sessionRow(s, now);
    assert.equal(row.description, "running · 1 turn");
    assert.equal(row.label.length, 80);
    assert.ok(row.label.endsWith("…"));
  });

  it("ages", () => {
    assert.equal(formatAge("2026-11-30T11:59:30Z", now), "just now");
    assert.equal(formatAge("2026-11-30T09:00:00Z", now), "3 h ago");
    assert.equal(formatAge("2026-11-29T09:00:00Z", now), "yesterday");
    assert.equal(formatAge("2026-08-01T00:00:00Z", now), "2026-08-01");
    assert.equal(formatAge("2026-12-01T00:00:00Z", now), "just now", "a clock ahead of ours is no negative age");
    assert.equal(formatAge("not a date", now), "");
    assert.equal(formatAge(undefined, now), "");
  });
});

describe("collectSessions", () => {
  const row = (i: number): SessionInfo => ({ sessionId: `s${i}`, cwd: "/w", state: "stored" });

  it("follows nextCursor to the last page, passing it back as cursor", async () => {
    const asked: unknown[] = [];
    const pages: Record<string, { sessions: SessionInfo[]; nextCursor?: string }> = {
      "": { sessions: [row(1), row(2)], nextCursor: "c1" },
      c1: { sessions: [row(3)] },
    };
    const got = await collectSessions(async (p) => {
      asked.push(p.cursor);
      return pages[p.cursor ?? ""];
    });
    assert.deepEqual(got.sessions.map((s) => s.sessionId), ["s1", "s2", "s3"]);
    assert.equal(got.more, false);
    assert.deepEqual(asked, [undefined, "c1"]);
  });

  it("stops at a repeated cursor and at the picker's maximum", async () => {
    let calls = 0;
    const looping = await collectSessions(async () => ({ sessions: [row(calls++)], nextCursor: "same" }));
    assert.equal(looping.sessions.length, 2);
    let n = 0;
    const endless = await collectSessions(async () => ({ sessions: Array.from({ length: 100 }, () => row(n++)), nextCursor: `c${n}` }));
    assert.equal(endless.sessions.length, PICKER_MAX_SESSIONS);
    assert.equal(endless.more, true);
  });
});
