// Numbers from start up to, not including, end; range(n) is range(0, n).
function range(start, end) {
  if (end === undefined) {
    end = start;
    start = 0;
  }
  const out = [];
  for (let i = start; i < end; i++) out.push(i);
  return out;
}

module.exports = { range };
