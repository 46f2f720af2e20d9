import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, issueToken, revokeToken } from "../../src/engine/auth/index.js";
import { openStore, type Store } from "../../src/engine/store/db.js";

let dir: string;
let store: Store;
let other: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dds-stamp-"));
  store = openStore(join(dir, "dds.db"));
  other = openStore(join(dir, "dds.db"));
});
afterEach(() => {
  store.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the store's change stamp", () => {
  it("stays the same while nothing is written, and changes with a write through this connection", () => {
    const before = store.changeStamp();
    expect(store.changeStampWithin(60_000)).toBe(before);
    expect(store.changeStamp()).toBe(before);
    issueToken(store, { workspace: "w", scopes: ["read"] });
    // Seen at once, however long the other-connections half may be cached.
    const after = store.changeStampWithin(60_000);
    expect(after).not.toBe(before);
    expect(store.changeStamp()).toBe(after);
  });

  it("changes with another connection's commit: at once without a maximum age, not before it with one", () => {
    const before = store.changeStampWithin(60_000);
    issueToken(other, { workspace: "w", scopes: ["read"] });
    expect(store.changeStampWithin(60_000)).toBe(before);
    expect(store.changeStamp()).not.toBe(before);
  });
});

describe("the token verdict cache", () => {
  it("answers each token for itself and forgets a verdict when another process revokes the token", () => {
    const auth = createAuthenticator(store);
    const a = issueToken(other, { workspace: "a", scopes: ["read"] });
    const b = issueToken(other, { workspace: "b", scopes: ["write"] });
    expect(auth.authenticate(a.token)?.workspace).toBe("a");
    expect(auth.authenticate(b.token)?.workspace).toBe("b");
    expect(auth.authenticate(a.token)?.scopes).toEqual(["read"]);
    expect(auth.authenticate(`${a.token}x`)).toBeUndefined();
    expect(auth.authenticate(a.token.slice(0, -1))).toBeUndefined();
    revokeToken(other, a.tokenId);
    expect(auth.authenticate(a.token)).toBeUndefined();
    expect(auth.authenticate(b.token)?.workspace).toBe("b");
  });

  it("a caller's copy of the principal cannot change the cached one", () => {
    const auth = createAuthenticator(store);
    const a = issueToken(other, { workspace: "a", scopes: ["read"] });
    auth.authenticate(a.token)!.scopes.push("admin");
    expect(auth.authenticate(a.token)?.scopes).toEqual(["read"]);
  });
});
