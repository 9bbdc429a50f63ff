// The named mistakes of a grading (API.md §13, docs/diagnosis.md) as a student reads them: a
// plain title ("Your key is too soft"); the code ("key_too_soft") stays in a data attribute
// for the staff and for scripts.

const TITLES = {
  uniform_attention: 'Your head attends to every letter equally',
  query_key_swapped: 'Your query and key are swapped',
  attends_to_wrong_class: 'Your head attends to the wrong letters',
  key_too_soft: 'Your key is too soft',
  query_too_soft: 'Your query is too soft',
  value_rows_swapped: 'Two rows of your W_V are swapped',
  value_wrong: 'Your W_V gives the wrong output',
  no_position_feature: 'Your head does not use the position',
};

// The title of the mistake `code`: the library's own, else the code in words
// ("reads_current_letter" -> "Reads current letter"), as a problem may name its own mistakes.
export function mistakeTitle(code) {
  if (Object.prototype.hasOwnProperty.call(TITLES, code)) return TITLES[code];
  const words = String(code).replace(/[_-]+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : 'A mistake';
}
