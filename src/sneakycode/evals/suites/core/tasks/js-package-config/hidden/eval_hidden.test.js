const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");

test("package.json is ready", () => {
  const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
  assert.equal(pkg.name, "tiny-lib");
  assert.equal(pkg.main, "index.js");
  assert.equal(pkg.description, "A tiny library.");
  assert.equal(pkg.version, "0.2.0");
  assert.equal(pkg.license, "MIT");
  assert.match(pkg.scripts.test, /^node --test\b/);
  assert.match(pkg.engines.node, /^>=\s*18(\.0(\.0)?)?$/);
});
