function isValidId(id) {
  return typeof id === "string" && /^[a-z0-9]{8}$/.test(id);
}

module.exports = { isValidId };
