// A new object with source's keys laid over target's.
function deepMerge(target, source) {
  return Object.assign(target, source);
}

module.exports = { deepMerge };
