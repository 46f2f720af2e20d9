import { describe, expect, it } from "vitest";
import type { LinkRemoval } from "../../../src/engine/pipeline/types.js";
import { linkRecords, type RecordValues } from "../../../src/engine/pipeline/stages/index.js";
import { at, compileAll, fid, passRecord, storedModel, uuid } from "./fixtures.js";

const PERSON = uuid(1, 20);
const OFFICE = uuid(1, 21);
const [person, office] = compileAll([
  storedModel({
    id: PERSON,
    name: "Person",
    group: 21,
    identity: ["personId"],
    fields: [
      { name: "personId", type: "string" },
      { name: "team", type: "json" },
    ],
    relationships: [
      { name: "teammates", target: "Person", cardinality: "many", match: { sourceField: "team", targetField: "team" } },
      { name: "buddy", target: "Person", cardinality: "one", match: { sourceField: "team", targetField: "team" } },
      { name: "everyone", target: "Person", cardinality: "many" },
      { name: "office", target: "Office", cardinality: "one" },
    ],
  }),
  storedModel({ id: OFFICE, name: "Office", group: 22, fields: [{ name: "city", type: "string" }] }),
]);

/** Person record `n` with a team value, created at minute `minute`. */
function personRec(n: number, team: unknown, minute = n): RecordValues {
  const values = team === undefined ? {} : { [fid(person, "team")]: team };
  return { record: passRecord(uuid(60, n), PERSON, [`P${n}`], at(minute)), values: { [fid(person, "personId")]: `P${n}`, ...values } };
}

const links = (records: RecordValues[], removals: LinkRemoval[] = [], name?: string) =>
  linkRecords([person, office], records, removals)
    .filter((l) => name === undefined || l.name === name)
    .map((l) => `${l.sourceRecordId.slice(-1)}-${l.name}-${l.targetRecordId.slice(-1)}`);

describe("linkRecords", () => {
  it("links by match, by canonical JSON equality, never to self", () => {
    const records = [personRec(1, { a: 1, b: 2 }), personRec(2, { b: 2, a: 1 }), personRec(3, { a: 2 })];
    expect(links(records, [], "teammates")).toEqual(["1-teammates-2", "2-teammates-1"]);
  });

  it("matches nothing from a null or absent source value", () => {
    const records = [personRec(1, null), personRec(2, null), personRec(3, undefined), personRec(4, undefined)];
    expect(links(records, [], "teammates")).toEqual([]);
    expect(links(records, [], "buddy")).toEqual([]);
  });

  it("links every target record without match, except itself", () => {
    const records = [personRec(1, "x"), personRec(2, "y"), personRec(3, "z")];
    expect(links(records, [], "everyone")).toEqual([
      "1-everyone-2", "1-everyone-3", "2-everyone-1", "2-everyone-3", "3-everyone-1", "3-everyone-2",
    ]);
    const hq = { record: passRecord(uuid(61, 1), OFFICE, null), values: {} };
    expect(links([personRec(1, "x"), hq], [], "office")).toEqual(["1-office-1"]);
  });

  it("keeps the oldest match for `one`, then the smallest id", () => {
    // Person 4 is the oldest of team t (minute 0), then 2 and 3 share minute 5.
    const records = [personRec(1, "t", 9), personRec(2, "t", 5), personRec(3, "t", 5), personRec(4, "t", 0)];
    expect(links(records, [], "buddy")).toEqual(["1-buddy-4", "2-buddy-4", "3-buddy-4", "4-buddy-2"]);
    expect(linkRecords([person, office], records, []).map((l) => l.targetModelId)).toContain(PERSON);
  });

  it("sorts by source, name, target and ignores input order", () => {
    const records = [personRec(3, "t"), personRec(1, "t"), personRec(2, "t")];
    const sorted = linkRecords([person, office], records, []);
    const shuffled = linkRecords([office, person], [records[1], records[2], records[0]], []);
    expect(shuffled).toEqual(sorted);
    const keys = sorted.map((l) => [l.sourceRecordId, l.name, l.targetRecordId].join(" "));
    expect(keys).toEqual([...keys].sort());
  });

  describe("removals", () => {
    const records = [personRec(1, "t", 1), personRec(2, "t", 2), personRec(3, "t", 3)];
    const removal = (s: number, name: string, t: number, sourceIdentity = `["P${s}"]`, targetIdentity = `["P${t}"]`): LinkRemoval => ({
      sourceRecordId: uuid(60, s),
      name,
      targetRecordId: uuid(60, t),
      sourceIdentity,
      targetIdentity,
    });

    it("exclude a removed link while both identities are unchanged", () => {
      expect(links(records, [removal(1, "teammates", 2)], "teammates")).toEqual([
        "1-teammates-3", "2-teammates-1", "2-teammates-3", "3-teammates-1", "3-teammates-2",
      ]);
    });

    it("lapse when either endpoint's identity changed", () => {
      const all = links(records, [], "teammates");
      expect(links(records, [removal(1, "teammates", 2, `["OLD"]`)], "teammates")).toEqual(all);
      expect(links(records, [removal(1, "teammates", 2, `["P1"]`, `["OLD"]`)], "teammates")).toEqual(all);
    });

    it("apply to singleton endpoints (null identities)", () => {
      const hq = { record: passRecord(uuid(61, 1), OFFICE, null), values: {} };
      const r = { ...removal(1, "office", 1, `["P1"]`, "null"), targetRecordId: uuid(61, 1), targetIdentity: null };
      expect(links([personRec(1, "x"), hq], [r], "office")).toEqual([]);
    });

    it("let a `one` relationship fall back to the next best match", () => {
      expect(links(records, [], "buddy")).toEqual(["1-buddy-2", "2-buddy-1", "3-buddy-1"]);
      expect(links(records, [removal(3, "buddy", 1)], "buddy")).toEqual(["1-buddy-2", "2-buddy-1", "3-buddy-2"]);
    });

    it("name exactly one link (source, name and target)", () => {
      expect(links(records, [removal(1, "everyone", 2)], "teammates")).toEqual(links(records, [], "teammates"));
    });
  });
});
