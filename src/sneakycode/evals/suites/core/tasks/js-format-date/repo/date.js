// A Date as YYYY-MM-DD (in UTC).
function formatDate(date) {
  return `${date.getUTCFullYear()}-${date.getUTCMonth()}-${date.getUTCDate()}`;
}

module.exports = { formatDate };
