const test = require("node:test");
const assert = require("node:assert/strict");
const { Queue } = require("./queue.js");

test("peek and size", () => {
  const q = new Queue();
  assert.equal(q.size, 0);
  assert.equal(q.peek(), undefined);
  q.enqueue("a");
  q.enqueue("b");
  assert.equal(q.peek(), "a");
  assert.equal(q.size, 2);
  assert.equal(q.dequeue(), "a");
  assert.equal(q.peek(), "b");
  assert.equal(q.size, 1);
});
