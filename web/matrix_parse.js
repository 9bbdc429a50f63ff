// Reading a matrix a student pasted or typed, in the forms they copy from: JSON or a Python
// list ([[1, 1], [0, 5]]), numpy (np.array([[1, 1], [0, 5]])), MATLAB ([1 1; 0 5]), LaTeX
// (\begin{bmatrix} 1 & 1 \\ 0 & 5 \end{bmatrix}, as in the handout), or plain rows of numbers,
// one a line. Entries stay text (as typed) so that the decimals typed reach the server
// unchanged; nothing here talks to the server.

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const UNSIGNED = '(\\d+(?:\\.\\d*)?|\\.\\d+)';
const FRACTION = new RegExp(`^([+-]?)${UNSIGNED}/${UNSIGNED}$`);
const LATEX_FRACTION = new RegExp(`^([+-]?)\\\\[dt]?frac\\{${UNSIGNED}\\}\\{${UNSIGNED}\\}$`);

// A typed entry with the minus sign of a PDF or a word processor (U+2212) read as "-", and
// "1/2" or LaTeX's \frac{1}{2} as the decimal it stands for; other text as it is.
function plainNumber(text) {
  const t = text.trim().replace(/\u2212/g, '-');
  const m = FRACTION.exec(t) || LATEX_FRACTION.exec(t);
  if (!m) return t;
  const denominator = Number(m[3]);
  if (denominator === 0) return t;  // not a number: it stays as typed and is refused
  return String((m[1] === '-' ? -1 : 1) * (Number(m[2]) / denominator));
}

// Whether `text` is a number as a person types it ("1", "-0.5", ".5", "1e-3", "−5", "1/2").
export function isNumberText(text) {
  return NUMBER.test(plainNumber(text));
}

// The typed number as a JSON number literal, keeping its decimals: ".50" -> "0.50",
// "+1." -> "1", "007" -> "7", "−5" -> "-5", "1/4" -> "0.25". Precondition: isNumberText(text).
export function jsonLiteral(text) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?([eE][+-]?\d+)?$/.exec(plainNumber(text));
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

// \begin{bmatrix} 1 & 1 \\ 0 & 5 \end{bmatrix} (or pmatrix, matrix; inside $…$ or \[…\]):
// rows split by "\\", entries by "&". Null when the text is not LaTeX.
function parseLatex(text) {
  let body = text.replace(/^\$+|\$+$/g, '').replace(/^\\\[|\\\]$/g, '').trim();
  const begin = /^\\begin\{([a-zA-Z]*matrix)\*?\}/.exec(body);
  if (!begin) return null;
  body = body.slice(begin[0].length);
  const end = new RegExp(`\\\\end\\{${begin[1]}\\*?\\}$`).exec(body);
  if (!end) return { error: `the matrix is not closed with \\end{${begin[1]}}` };
  body = body.slice(0, end.index);
  const rows = body
    .split(/\\\\/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line.split('&').map((entry) => entry.trim()));
  return { rows };
}

function count(n) {
  return n === 1 ? '1 number' : `${n} numbers`;
}

// {rows: [[text…]…], form} on success, {error} (a sentence) otherwise.
export function parseMatrixText(input) {
  const text = input.trim().replace(/;\s*$/, '').trim();
  if (text === '') return { error: 'the box is empty' };
  const latex = parseLatex(text);
  if (latex) return checkRows(latex, 'LaTeX');
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
  return checkRows(nested ? parseNested(body) : parseFlat(body), form);
}

// `parsed` ({rows} or {error}) as parseMatrixText answers: every row as long as the first,
// every entry a number.
function checkRows(parsed, form) {
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
