function isValidId(id) {
  return typeof id === "string" && /^[a-z0-9]{8}$/.test(id);
}

function createUser(id, name) {
  if (!isValidId(id)) throw new Error(`bad user id: ${id}`);
  return { id, name };
}

module.exports = { createUser };
