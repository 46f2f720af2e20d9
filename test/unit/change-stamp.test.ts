import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, issueToken, revokeToken } from "../../src/engine/auth/index.js";
import { openSqliteDatabase, type SqliteStore } from "../../src/engine/store/db.js";

let dir: string;
let store: SqliteStore;
let other: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dds-stamp-"));
  store = openSqliteDatabase(join(dir, "dds.db"));
  other = openSqliteDatabase(join(dir, "dds.db"));
});
afterEach(async () => {
  await store.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the store's change stamp", () => {
  it("stays the same while nothing is written, and changes with a write through this connection", async () => {
    const before = store.changeStamp();
    expect(store.changeStamp(60_000)).toBe(before);
    expect(store.changeStamp()).toBe(before);
    await issueToken(store, { workspace: "w", scopes: ["read"] });
    // Seen at once, however long the other-connections half may be cached.
    const after = store.changeStamp(60_000);
    expect(after).not.toBe(before);
    expect(store.changeStamp()).toBe(after);
  });

  it("changes with another connection's commit at once, whatever the maximum age (the wal-index is read on every call)", async () => {
    for (let i = 0; i < 20; i++) {
      const before = store.changeStamp(60_000);
      expect(store.changeStamp(60_000)).toBe(before);
      await issueToken(other, { workspace: "w", scopes: ["read"] });
      const after = store.changeStamp(60_000);
      expect(after).not.toBe(before);
      expect(store.changeStamp(60_000)).toBe(after);
    }
  });
});

describe("the token verdict cache", () => {
  it("answers each token for itself and forgets a verdict when another process revokes the token", async () => {
    const auth = createAuthenticator(store);
    const a = await issueToken(other, { workspace: "a", scopes: ["read"] });
    const b = await issueToken(other, { workspace: "b", scopes: ["write"] });
    expect((await auth.authenticate(a.token))?.workspace).toBe("a");
    expect((await auth.authenticate(b.token))?.workspace).toBe("b");
    expect((await auth.authenticate(a.token))?.scopes).toEqual(["read"]);
    expect((await auth.authenticate(`${a.token}x`))).toBeUndefined();
    expect((await auth.authenticate(a.token.slice(0, -1)))).toBeUndefined();
    await revokeToken(other, a.tokenId);
    expect((await auth.authenticate(a.token))).toBeUndefined();
    expect((await auth.authenticate(b.token))?.workspace).toBe("b");
  });

  it("a caller's copy of the principal cannot change the cached one", async () => {
    const auth = createAuthenticator(store);
    const a = await issueToken(other, { workspace: "a", scopes: ["read"] });
    (await auth.authenticate(a.token))!.scopes.push("admin");
    expect((await auth.authenticate(a.token))?.scopes).toEqual(["read"]);
  });
});
