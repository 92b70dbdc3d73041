const test = require("node:test");
const assert = require("node:assert/strict");
const { deepMerge } = require("./merge.js");

test("nested objects merge", () => {
  const merged = deepMerge({ db: { host: "x", port: 1, opts: { ssl: true } } }, { db: { port: 2, opts: { pool: 5 } } });
  assert.deepEqual(merged, { db: { host: "x", port: 2, opts: { ssl: true, pool: 5 } } });
});

test("arrays are replaced", () => {
  assert.deepEqual(deepMerge({ tags: [1, 2] }, { tags: [3] }), { tags: [3] });
});

test("inputs are untouched", () => {
  const a = { db: { host: "x" } };
  const b = { db: { port: 2 }, name: "n" };
  deepMerge(a, b);
  assert.deepEqual(a, { db: { host: "x" } });
  assert.deepEqual(b, { db: { port: 2 }, name: "n" });
});
