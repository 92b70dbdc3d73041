const { isValidId } = require("./validate");

function createUser(id, name) {
  if (!isValidId(id)) throw new Error(`bad user id: ${id}`);
  return { id, name };
}

module.exports = { createUser };
