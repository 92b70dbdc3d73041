function isValidId(id) {
  return typeof id === "string" && /^[a-z0-9]{8}$/.test(id);
}

function createOrder(id, userId, amount) {
  if (!isValidId(id) || !isValidId(userId)) throw new Error("bad id");
  return { id, userId, amount };
}

module.exports = { createOrder };
