const test = require("node:test");
const assert = require("node:assert/strict");
const { formatDate } = require("./date.js");

test("formats dates", () => {
  assert.equal(formatDate(new Date(Date.UTC(2024, 0, 5))), "2024-01-05");
  assert.equal(formatDate(new Date(Date.UTC(1999, 11, 31))), "1999-12-31");
  assert.equal(formatDate(new Date(Date.UTC(2030, 9, 10))), "2030-10-10");
});
