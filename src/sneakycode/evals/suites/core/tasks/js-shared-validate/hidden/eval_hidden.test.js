const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const { isValidId } = require("./src/validate.js");
const { createUser } = require("./src/users.js");
const { createOrder } = require("./src/orders.js");

test("validate.js", () => {
  assert.equal(isValidId("abcd1234"), true);
  assert.equal(isValidId("ABCD1234"), false);
  assert.equal(isValidId("abc"), false);
  assert.equal(isValidId(12345678), false);
});

test("behaviour unchanged", () => {
  assert.deepEqual(createUser("abcd1234", "Ann"), { id: "abcd1234", name: "Ann" });
  assert.throws(() => createUser("nope", "Ann"));
  assert.deepEqual(createOrder("order001", "abcd1234", 5), { id: "order001", userId: "abcd1234", amount: 5 });
  assert.throws(() => createOrder("order001", "bad", 5));
});

test("one copy", () => {
  for (const file of ["src/users.js", "src/orders.js"]) {
    const source = fs.readFileSync(file, "utf8");
    assert.doesNotMatch(source, /function isValidId/, file);
    assert.match(source, /require\(["']\.\/validate(\.js)?["']\)/, file);
  }
});
