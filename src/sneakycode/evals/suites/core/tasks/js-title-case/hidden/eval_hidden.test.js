const test = require("node:test");
const assert = require("node:assert/strict");
const { capitalize, titleCase } = require("./strings.js");

test("capitalize still works", () => {
  assert.equal(capitalize("hELLO"), "Hello");
});

test("titleCase", () => {
  assert.equal(titleCase("the lord of the rings"), "The Lord of the Rings");
  assert.equal(titleCase("A TALE OF TWO CITIES"), "A Tale of Two Cities");
  assert.equal(titleCase("war and peace"), "War and Peace");
  assert.equal(titleCase("of mice and men"), "Of Mice and Men");
});
