function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// A new object with source's keys laid over target's; nested plain objects are merged, arrays replaced.
function deepMerge(target, source) {
  const out = { ...target };
  for (const [key, value] of Object.entries(source)) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key], value) : value;
  }
  return out;
}

module.exports = { deepMerge };
