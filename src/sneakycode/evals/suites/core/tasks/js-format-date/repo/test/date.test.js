const test = require("node:test");
const assert = require("node:assert/strict");
const { formatDate } = require("../date.js");

test("formats a date", () => {
  assert.equal(formatDate(new Date(Date.UTC(2024, 0, 5))), "2024-01-05");
});
