// One matrix the student submits, as the page lets them enter it: its editable grid, a row
// added or removed, and a paste box that reads a whole matrix (JSON, numpy, MATLAB, LaTeX) and
// echoes what it read, with a place under it for the server's error about that matrix.

import { element } from './dom.js';
import { EditableGrid } from './grid.js';
import { jsonLiteral, parseMatrixText } from './matrix_parse.js';

// The paste box says what the grid holds, so the two never disagree: the grid's matrix as
// JSON when every box is filled, else nothing (the boxes are the matrix).
function showInPaste({ grid, paste, echo }) {
  const values = grid.values();
  const complete = values.every((row) => row.every((t) => t !== null && t.trim() !== ''));
  paste.value = complete ? `[${values.map((row) => `[${row.join(', ')}]`).join(', ')}]` : '';
  paste.classList.remove('invalid');
  echo.textContent = '';
}

// The entry of the matrix `name` (n × nE; W_V starts with 2 rows, W_q and W_k with 1), holding
// `kept` (rows of entry texts, as saved) when it is a matrix; onEdit() after each change made
// in it. {fieldset, grid, error, paste, echo}: the fieldset is for the page to place.
export function matrixEntry({ name, nE, featureLabel, kept, onEdit }) {
  const grid = new EditableGrid({
    name,
    rows: name === 'W_V' ? 2 : 1,
    cols: nE,
    colLabel: featureLabel,
    rowLabel: (r) => `row ${r + 1}`,
    describeCell: (r, c) => `${name} row ${r + 1}, ${featureLabel(c)}`,
    onChange: () => {
      showInPaste(entry);
      onEdit();
    },
  });
  if (Array.isArray(kept) && kept.length && Array.isArray(kept[0]) && kept[0].length) {
    grid.setValues(kept);
  }
  const error = element('p', { class: 'error', id: `error-${name}`, role: 'alert' });
  const paste = element('textarea', {
    id: `paste-${name}`,
    rows: 2,
    cols: 28,
    spellcheck: 'false',
    'aria-describedby': `echo-${name}`,
  });
  const echo = element('p', { class: 'echo', id: `echo-${name}`, 'aria-live': 'polite' });
  paste.addEventListener('input', () => {
    if (paste.value.trim() === '') {
      echo.textContent = '';
      paste.classList.remove('invalid');
      return;
    }
    const parsed = parseMatrixText(paste.value);
    paste.classList.toggle('invalid', Boolean(parsed.error));
    if (parsed.error) {
      echo.textContent = `Not understood: ${parsed.error}. The boxes above still hold your `
        + `last ${name}.`;
      return;
    }
    grid.setValues(parsed.rows);
    const read = parsed.rows.map((r) => `[${r.map(jsonLiteral).join(', ')}]`).join(', ');
    echo.textContent =
      `Read as ${parsed.form}: ${parsed.rows.length} × ${parsed.rows[0].length}, [${read}]`;
    onEdit();
  });
  const add = element('button', {
    type: 'button', class: 'small', text: 'Add a row', 'aria-label': `Add a row to ${name}`,
  });
  const remove = element('button', {
    type: 'button',
    class: 'small',
    text: 'Remove a row',
    'aria-label': `Remove the last row of ${name}`,
  });
  add.addEventListener('click', () => {
    grid.resize(grid.rows + 1, grid.cols);
    showInPaste(entry);
    onEdit();
  });
  remove.addEventListener('click', () => {
    if (grid.rows > 1) grid.resize(grid.rows - 1, grid.cols);
    showInPaste(entry);
    onEdit();
  });
  const shapeNote = name === 'W_V' ? `n_v × ${nE}` : `n_q × ${nE}`;
  const fieldset = element('fieldset', { class: 'weight', id: `matrix-${name}` },
    element('legend', { text: `${name} (${shapeNote})` }),
    element('div', { class: 'scroll' }, grid.table),
    element('div', { class: 'row-buttons' }, add, remove),
    element('label', {
      for: `paste-${name}`,
      text: `Or paste ${name} (JSON [[1, 1]], numpy np.array([[1, 1]]), MATLAB [1 1; 0 5] `
        + 'or LaTeX \\begin{bmatrix} 1 & 1 \\end{bmatrix})',
    }),
    paste, echo, error);
  const entry = { fieldset, grid, error, paste, echo };
  showInPaste(entry);
  return entry;
}
