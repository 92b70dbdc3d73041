const { isValidId } = require("./validate");

function createOrder(id, userId, amount) {
  if (!isValidId(id) || !isValidId(userId)) throw new Error("bad id");
  return { id, userId, amount };
}

module.exports = { createOrder };
