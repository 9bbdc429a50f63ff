// What the page remembers across reloads (localStorage): the matrices typed for each problem
// and the problem last opened. Private browsing or a full storage only makes the page forget:
// every call here succeeds.

const matricesKey = (id) => `headgrader:matrices:${id}`;
const problemKey = 'headgrader:problem';

// `saved`: { W_q: rows of entry texts, … } for the problem `id`, which becomes the last opened.
export function saveMatrices(id, saved) {
  try {
    localStorage.setItem(matricesKey(id), JSON.stringify(saved));
    localStorage.setItem(problemKey, id);
  } catch (full) {
    // Private browsing or a full storage: the page works, it only forgets on reload.
  }
}

// The id of the problem last opened, or null.
export function storedProblem() {
  try {
    return localStorage.getItem(problemKey);
  } catch (denied) {
    return null;
  }
}

// The matrices saved for the problem `id`, or {} when none (or what was saved is unreadable).
export function restoreMatrices(id) {
  try {
    return JSON.parse(localStorage.getItem(matricesKey(id)) || '{}') || {};
  } catch (broken) {
    return {};
  }
}
