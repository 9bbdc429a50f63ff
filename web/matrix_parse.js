// Reading a matrix a student pasted or typed, in the forms they copy from: JSON or a Python
// list ([[1, 1], [0, 5]]), numpy (np.array([[1, 1], [0, 5]])) and MATLAB ([1 1; 0 5]), or
// plain rows of numbers, one a line. Entries stay text (as typed) so that the decimals typed
// reach the server unchanged; nothing here talks to the server.

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

// Whether `text` is a number as a person types it ("1", "-0.5", ".5", "1e-3").
export function isNumberText(text) {
  return NUMBER.test(text.trim());
}

// The typed number as a JSON number literal, keeping its decimals: ".50" -> "0.50",
// "+1." -> "1", "007" -> "7". Precondition: isNumberText(text).
export function jsonLiteral(text) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?([eE][+-]?\d+)?$/.exec(text.trim());
  const sign = m[1] === '-' ? '-' : '';
  const whole = (m[2] || '0').replace(/^0+(?=\d)/, '');
  const fraction = m[3] ? `.${m[3]}` : '';
  const exponent = m[4] ? m[4].replace('+', '') : '';
  return `${sign}${whole}${fraction}${exponent}`;
}

// Cuts "np.array(X, dtype=float)" down to X; other text is returned as it is.
function unwrapCall(text) {
  const call = /^(?:np|numpy)\s*\.\s*(?:array|asarray|matrix)\s*\(|^(?:array|matrix)\s*\(/
    .exec(text);
  if (!call) return { text };
  if (!text.endsWith(')')) return { error: 'the np.array( … ) call is not closed with ")"' };
  let inner = text.slice(call[0].length, -1).trim();
  // Keep the first argument: up to the bracket that closes it.
  if (inner.startsWith('[')) {
    let depth = 0;
    for (let i = 0; i < inner.length; i += 1) {
      if (inner[i] === '[') depth += 1;
      if (inner[i] === ']') depth -= 1;
      if (depth === 0) {
        inner = inner.slice(0, i + 1);
        break;
      }
    }
  }
  return { text: inner };
}

// Nested brackets: [[1, 1], [0, 5]] (JSON, Python, numpy), trailing commas allowed.
function parseNested(text) {
  const tokens = text.match(/\[|\]|,|[^\s,[\]]+/g) || [];
  let at = 0;
  const rows = [];
  if (tokens[at++] !== '[') return { error: 'it should start with "["' };
  while (tokens[at] === '[') {
    at += 1;
    const row = [];
    while (tokens[at] !== undefined && tokens[at] !== ']') {
      if (tokens[at] === ',') {
        at += 1;
        continue;
      }
      if (tokens[at] === '[') return { error: 'a matrix has rows of numbers, not deeper lists' };
      row.push(tokens[at]);
      at += 1;
    }
    if (tokens[at] !== ']') return { error: `row ${rows.length + 1} is not closed with "]"` };
    at += 1;
    rows.push(row);
    if (tokens[at] === ',') at += 1;
  }
  if (tokens[at] !== ']') return { error: 'the matrix is not closed with "]"' };
  if (at !== tokens.length - 1) return { error: 'there is text after the closing "]"' };
  return { rows };
}

// Rows split by ";" or new lines, entries by spaces or commas: MATLAB's [1 1; 0 5], a flat
// [1, 1] (one row), or bare lines of numbers.
function parseFlat(text) {
  let body = text;
  if (body.startsWith('[')) {
    if (!body.endsWith(']')) return { error: 'the matrix is not closed with "]"' };
    body = body.slice(1, -1);
  }
  const rows = body
    .split(/;|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/[\s,]+/).filter((entry) => entry !== ''));
  return { rows };
}

function count(n) {
  return n === 1 ? '1 number' : `${n} numbers`;
}

// {rows: [[text…]…], form} on success, {error} (a sentence) otherwise.
export function parseMatrixText(input) {
  const text = input.trim().replace(/;\s*$/, '').trim();
  if (text === '') return { error: 'the box is empty' };
  const unwrapped = unwrapCall(text);
  if (unwrapped.error) return { error: unwrapped.error };
  const body = unwrapped.text.trim();
  const nested = /^\[\s*\[/.test(body);
  let form = 'rows of numbers';
  if (unwrapped.text !== text) form = 'numpy';
  else if (nested) form = 'JSON';
  else if (body.startsWith('[')) {
    form = body.includes(',') && !body.includes(';') ? 'a list' : 'MATLAB';
  }
  const parsed = nested ? parseNested(body) : parseFlat(body);
  if (parsed.error) return parsed;
  const { rows } = parsed;
  if (rows.length === 0 || rows[0].length === 0) return { error: 'no numbers were found' };
  for (let r = 0; r < rows.length; r += 1) {
    if (rows[r].length !== rows[0].length) {
      return {
        error: `row ${r + 1} has ${count(rows[r].length)} but row 1 has `
          + `${count(rows[0].length)}; every row needs the same count`,
      };
    }
    for (let c = 0; c < rows[r].length; c += 1) {
      if (!isNumberText(rows[r][c])) {
        return {
          error: `row ${r + 1}, column ${c + 1} is "${rows[r][c].slice(0, 20)}", not a number`,
        };
      }
    }
  }
  return { rows, form };
}
