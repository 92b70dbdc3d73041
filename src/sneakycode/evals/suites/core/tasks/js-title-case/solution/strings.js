const SMALL = new Set(["a", "an", "and", "at", "in", "of", "on", "or", "the", "to"]);

function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

function titleCase(text) {
  return text
    .split(" ")
    .map((word, i) => (i > 0 && SMALL.has(word.toLowerCase()) ? word.toLowerCase() : capitalize(word)))
    .join(" ");
}

module.exports = { capitalize, titleCase };
