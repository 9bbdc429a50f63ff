// What each feature (a row of W_E, a column of W_q, W_k, W_V) means, for the page's labels:
// the problem's own `feature_names` (API.md §15) when it has them, else the class whose
// letters are exactly the letters that set the row ("vowel"), else "feature i".

// The label of every feature of `problem`, one per row of W_E.
export function featureNames(problem) {
  const n = problem.W_E.length;
  const given = problem.feature_names;
  if (Array.isArray(given) && given.length === n
      && given.every((name) => typeof name === 'string' && name.trim() !== '')) {
    return unique(given.map((name) => name.trim()));
  }
  const alphabet = Array.from(problem.alphabet || '');
  const classes = Object.entries(problem.classes || {})
    .map(([name, letters]) => [name, Array.from(new Set(Array.from(letters))).sort().join('')]);
  return unique(problem.W_E.map((row, i) => {
    const letters = alphabet.filter((_, c) => row[c] !== 0).sort().join('');
    const match = letters && classes.find(([, members]) => members === letters);
    return match ? match[0] : `feature ${i + 1}`;
  }));
}

// Names that repeat (two rows set by the same letters) get their feature number, so that
// every label says which row it is.
function unique(names) {
  return names.map((name, i) => (names.indexOf(name) === names.lastIndexOf(name)
    ? name
    : `${name} (feature ${i + 1})`));
}
