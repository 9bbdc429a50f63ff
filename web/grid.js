// Tables of numbers, the one widget of the page: editable grids (one text box per entry) and
// result tables. A result table is a single tab stop: Tab enters at the last cell used, the
// arrow keys move inside (Home/End to the row's ends), and Enter selects the row. In an
// editable grid every box is a tab stop, so that typing "1", Tab, "1" fills two boxes as in a
// spreadsheet; the arrow keys move between boxes too. Every cell carries a label that reads on
// its own ("query b at 2, key a at 1: 0.12").

import { element } from './dom.js';
import { isNumberText } from './matrix_parse.js';

// Shown precision: whole numbers as they are, others to 4 decimals, never "-0.0000".
export function formatNumber(x) {
  if (x === null || x === undefined) return '–';
  if (Number.isInteger(x)) return String(x);
  const text = x.toFixed(4);
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}

// Roving focus over the cells of `table` that match `selector` (each with data-row, data-col).
export function rove(table, selector, { onEnter, editable }) {
  const cell = (r, c) => table.querySelector(`${selector}[data-row="${r}"][data-col="${c}"]`);
  const focusCell = (target) => {
    if (!target) return;
    if (!editable) {
      for (const other of table.querySelectorAll(`${selector}[tabindex="0"]`)) other.tabIndex = -1;
      target.tabIndex = 0;
    }
    target.focus();
  };
  table.addEventListener('focusin', (event) => {
    const target = event.target.closest(selector);
    if (!target || editable) return;
    for (const other of table.querySelectorAll(`${selector}[tabindex="0"]`)) {
      if (other !== target) other.tabIndex = -1;
    }
    target.tabIndex = 0;
  });
  table.addEventListener('keydown', (event) => {
    const current = event.target.closest(selector);
    if (!current) return;
    const r = Number(current.dataset.row);
    const c = Number(current.dataset.col);
    // In a box, an arrow moves the caret until it is at that end; a box whose whole text is
    // selected (as when Tab lands on it) is at both ends, so the arrows go on to the next box.
    const all = editable && current.selectionStart === 0
      && current.selectionEnd === current.value.length;
    const atStart = !editable || all
      || (current.selectionStart === 0 && current.selectionEnd === 0);
    const atEnd = !editable || all || current.selectionStart === current.value.length;
    let next = null;
    if (event.key === 'ArrowUp') next = cell(r - 1, c);
    else if (event.key === 'ArrowDown') next = cell(r + 1, c);
    else if (event.key === 'ArrowLeft' && atStart) next = cell(r, c - 1);
    else if (event.key === 'ArrowRight' && atEnd) next = cell(r, c + 1);
    else if (event.key === 'Home' && !editable) next = cell(r, 0);
    else if (event.key === 'End' && !editable) {
      const row = table.querySelectorAll(`${selector}[data-row="${r}"]`);
      next = row[row.length - 1];
    } else if (event.key === 'Enter' && onEnter) {
      event.preventDefault();
      onEnter(r);
      return;
    } else {
      return;
    }
    event.preventDefault();
    focusCell(next);
  });
}

// A result table. `rows`: numbers (null: masked). `rowLabels`/`colLabels`: header texts.
// `describe(r, c, text)`: the cell's accessible label. `paint(x)`: {background, color} or null.
// `masked(r, c)`: hatched "–" cells. `mark(r, c)`: a class for the cell (e.g. "wrong").
export function resultTable({
  id, caption, rows, rowLabels, colLabels, describe, paint, masked, mark, onSelectRow, cornerLabel,
}) {
  const table = element('table', {
    class: 'matrix result', id, role: 'grid', 'aria-readonly': 'true',
  });
  table.append(element('caption', { text: caption }));
  const head = element('tr', {}, element('th', { scope: 'col', text: cornerLabel || '' }));
  for (const label of colLabels) head.append(element('th', { scope: 'col', text: label }));
  table.append(element('thead', {}, head));
  const body = element('tbody');
  rows.forEach((row, r) => {
    const tr = element('tr', { 'data-row': r });
    tr.append(element('th', { scope: 'row', text: rowLabels[r] }));
    row.forEach((x, c) => {
      const isMasked = masked ? masked(r, c) : x === null;
      const text = isMasked ? '–' : formatNumber(x);
      const td = element('td', {
        'data-row': r,
        'data-col': c,
        tabindex: r === 0 && c === 0 ? 0 : -1,
        role: 'gridcell',
        'aria-label': describe(r, c, isMasked ? 'masked' : text),
        class: [isMasked ? 'masked' : '', mark ? mark(r, c) || '' : ''].join(' ').trim()
          || undefined,
        text,
      });
      if (!isMasked && paint) {
        const colours = paint(x);
        if (colours) {
          td.style.backgroundColor = colours.background;
          td.style.color = colours.color;
        }
      }
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(body);
  rove(table, 'td', { onEnter: onSelectRow, editable: false });
  if (onSelectRow) {
    table.addEventListener('click', (event) => {
      const target = event.target.closest('[data-row]');
      if (target && table.contains(target)) onSelectRow(Number(target.dataset.row));
    });
  }
  return table;
}

// An editable matrix: one text box per entry. values(): the entries as typed.
export class EditableGrid {
  // name: "W_q" (labels), rows × cols, colLabel(c), rowLabel(r), fixed(r, c): a masked entry,
  // not editable (sent as null), shown as `fixedText` ("–" unless given: "0" for the attention
  // a mask hides), onChange(): after every edit.
  constructor({
    name, rows, cols, colLabel, rowLabel, fixed, fixedText, onChange, describeCell,
  }) {
    Object.assign(this, {
      name, cols, colLabel, rowLabel, fixed, fixedText: fixedText || '–', onChange, describeCell,
    });
    this.table = element('table', { class: 'matrix editable', role: 'grid', 'aria-label': name });
    this.table.addEventListener('input', (event) => {
      // An edited box may be outlined when it is not a number, even emptied; one never
      // touched is not, until the student asks to grade (showAll of markInvalid).
      if (event.target.dataset) event.target.dataset.touched = 'true';
      if (this.onChange) this.onChange();
    });
    rove(this.table, 'input', { editable: true });
    this.resize(rows, cols);
  }

  resize(rows, cols, keep = true) {
    const old = keep ? this.values() : [];
    this.cols = cols;
    this.table.replaceChildren();
    const head = element('tr', {}, element('td', { class: 'corner' }));
    for (let c = 0; c < cols; c += 1) {
      head.append(element('th', { scope: 'col', text: this.colLabel(c) }));
    }
    this.table.append(element('thead', {}, head));
    const body = element('tbody');
    for (let r = 0; r < rows; r += 1) {
      const tr = element('tr', {}, element('th', { scope: 'row', text: this.rowLabel(r) }));
      for (let c = 0; c < cols; c += 1) {
        const td = element('td');
        if (this.fixed && this.fixed(r, c)) {
          td.className = 'masked fixed';
          const fixedLabel = this.fixedText === '–'
            ? 'masked'
            : `${this.fixedText}, fixed by the mask`;
          td.append(element('span', {
            'aria-label': `${this.describe(r, c)}: ${fixedLabel}`,
            role: 'img',
            text: this.fixedText,
          }));
        } else {
          const input = element('input', {
            type: 'text',
            inputmode: 'decimal',
            autocomplete: 'off',
            spellcheck: 'false',
            size: 6,
            'data-row': r,
            'data-col': c,
            'aria-label': this.describe(r, c),
          });
          input.value = (old[r] && old[r][c]) || '';
          td.append(input);
        }
        tr.append(td);
      }
      body.append(tr);
    }
    this.table.append(body);
  }

  describe(r, c) {
    return this.describeCell
      ? this.describeCell(r, c)
      : `${this.name} row ${r + 1}, ${this.colLabel(c)}`;
  }

  get rows() {
    return this.table.querySelectorAll('tbody tr').length;
  }

  input(r, c) {
    return this.table.querySelector(`input[data-row="${r}"][data-col="${c}"]`);
  }

  // Entries as typed; null where the entry is fixed (masked).
  values() {
    const out = [];
    for (let r = 0; r < this.rows; r += 1) {
      const row = [];
      for (let c = 0; c < this.cols; c += 1) {
        const input = this.input(r, c);
        row.push(input ? input.value : null);
      }
      out.push(row);
    }
    return out;
  }

  setValues(rows) {
    this.resize(rows.length, rows[0].length, false);
    rows.forEach((row, r) => row.forEach((text, c) => {
      const input = this.input(r, c);
      if (input) input.value = text === null ? '' : String(text);
    }));
  }

  isBlank() {
    return this.values().every((row) => row.every((text) => text === null || text.trim() === ''));
  }

  // Counts the empty and non-numeric entries ({bad, shown, first}: first, the first box of
  // those outlined). Outlined: a box with text that is not a number, or one emptied by an edit;
  // with `showAll`, every one (the student asked to grade).
  markInvalid(showAll = true) {
    let bad = 0;
    let shown = 0;
    let first = null;
    for (const input of this.table.querySelectorAll('input')) {
      const ok = isNumberText(input.value);
      const outline = !ok && (showAll || input.value.trim() !== '' || input.dataset.touched);
      input.classList.toggle('invalid', Boolean(outline));
      input.setAttribute('aria-invalid', outline ? 'true' : 'false');
      if (!ok) bad += 1;
      if (outline) {
        shown += 1;
        first = first || input;
      }
    }
    return { bad, shown, first };
  }

  // The box the keyboard should land on to fix this matrix: the first outlined, else the first.
  firstBox() {
    return this.table.querySelector('input.invalid') || this.table.querySelector('input');
  }

  // Marks the entries at `positions` ([[row, col]…], 1-based) wrong, the rest unmarked.
  markWrong(positions) {
    for (const input of this.table.querySelectorAll('input')) input.classList.remove('wrong');
    for (const [r, c] of positions) {
      const input = this.input(r - 1, c - 1);
      if (input) input.classList.add('wrong');
    }
  }
}
