const test = require("node:test");
const assert = require("node:assert/strict");
const { range } = require("./range.js");

test("end is exclusive", () => {
  assert.deepEqual(range(1, 5), [1, 2, 3, 4]);
  assert.deepEqual(range(3, 3), []);
});

test("one argument counts from zero", () => {
  assert.deepEqual(range(5), [0, 1, 2, 3, 4]);
  assert.deepEqual(range(0), []);
});
