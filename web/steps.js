// Check my steps (the handout's Part C; API.md §10): the student types the matrices they
// computed by hand for their own weights and a string of their own, and the server says
// which step first went wrong and which entries, judging each step against the student's own
// earlier ones. Correct values are shown only when the student asks for them.

import { checkSteps } from './api.js';
import { EditableGrid, element, resultTable } from './grid.js';
import { jsonLiteral } from './matrix_parse.js';

const STEPS = [
  ['Q', 'Q (one row per letter, n_q columns)'],
  ['K', 'K (one row per letter, n_q columns)'],
  ['V', 'V (one row per letter, n_v columns)'],
  ['scores', 'Scores = scale · Q Kᵀ (rows queries, columns keys)'],
  ['masked_scores', 'Masked scores ("–" where the mask hides a key)'],
  ['attention', 'Attention = softmax of each row'],
  ['output', 'Output = attention · V'],
];

const matrixText = (rows) => `[${rows.map((row) => `[${row.map((t) => (t === null ? 'null' : jsonLiteral(t))).join(', ')}]`).join(', ')}]`;

export class StepsPanel {
  // root: the section's content element. weights(): {ok, parts: ['"W_q": …'], nq, nv} from
  // the matrices section. showWeightError(error): shows a server error about a weight.
  constructor(root, { weights, showWeightError }) {
    Object.assign(this, { root, weights, showWeightError });
    this.problem = null;
    this.grids = new Map();
  }

  setProblem(problem) {
    this.problem = problem;
    this.root.replaceChildren();
    const alphabet = Array.from(problem.alphabet);
    const suggestion = Array.from('abcce').every((ch) => alphabet.includes(ch)) ? (problem.W_P ? 'cbcce' : 'abcce') : (problem.strings.examples[0] || alphabet.slice(0, 3).join(''));
    this.input = element('input', { type: 'text', id: 'steps-input', autocomplete: 'off', spellcheck: 'false', value: suggestion, 'aria-describedby': 'steps-input-help steps-input-error' });
    this.input.addEventListener('input', () => this.layout());
    this.inputError = element('p', { class: 'error', id: 'steps-input-error', role: 'alert' });
    this.root.append(
      element('p', { class: 'help', text: 'Pick a short string, compute each step by hand for your own matrices above, and type the ones you want checked (leave a whole table empty to skip it). Each step is judged from your own earlier steps, so one slip is marked once. A number counts as right within 0.001, or when it is the right value rounded to the decimals you typed.' }),
      element('label', { for: 'steps-input', text: 'Your string' }), ' ', this.input,
      element('p', { class: 'help', id: 'steps-input-help', text: `Letters of "${problem.alphabet}"${problem.W_P ? `, at most ${problem.W_P[0].length}` : ''}.` }),
      this.inputError,
    );
    this.gridBox = element('div', { class: 'steps-grids' });
    this.root.append(this.gridBox);
    this.reveal = element('input', { type: 'checkbox', id: 'steps-reveal' });
    this.button = element('button', { type: 'button', id: 'check-steps', class: 'primary', text: 'Check my steps' });
    this.button.addEventListener('click', () => this.check());
    this.status = element('p', { id: 'steps-status', role: 'status' });
    this.root.append(
      element('p', {}, this.reveal, ' ', element('label', { for: 'steps-reveal', text: 'Show the correct value of each wrong entry' })),
      this.button, this.status);
    this.grids.clear();
    this.layout();
  }

  letters() {
    return Array.from(this.input.value);
  }

  // (Re)builds the grids for the string's length and the current n_q, n_v, keeping entries.
  layout() {
    if (!this.problem) return;
    const chars = this.letters();
    const L = chars.length;
    const { nq, nv } = this.weights();
    const label = (i) => `${chars[i]} at ${i + 1}`;
    const causal = this.problem.causal !== false;
    for (const [name, title] of STEPS) {
      const square = name === 'scores' || name === 'masked_scores' || name === 'attention';
      const cols = square ? L : name === 'V' || name === 'output' ? nv : nq;
      const colLabel = (c) => (square ? label(c) : `${name === 'output' ? 'c' : name.toLowerCase()} ${c + 1}`);
      let entry = this.grids.get(name);
      if (!entry) {
        const status = element('p', { class: 'step-status', id: `step-status-${name}` });
        const revealBox = element('div', { class: 'revealed' });
        const grid = new EditableGrid({
          name: `steps ${name}`,
          rows: L,
          cols,
          colLabel,
          rowLabel: label,
          fixed: name === 'masked_scores' && causal ? (r, c) => c > r : null,
          describeCell: (r, c) => (square ? `${name}, query ${label(r)}, key ${label(c)}` : `${name}, ${label(r)}, ${colLabel(c)}`),
          onChange: () => this.validate(),
        });
        const figure = element('fieldset', { class: 'step', id: `step-${name}` },
          element('legend', { text: title }), element('div', { class: 'scroll' }, grid.table), status, revealBox);
        entry = { grid, status, revealBox, figure };
        this.grids.set(name, entry);
        this.gridBox.append(figure);
      }
      Object.assign(entry.grid, { colLabel, rowLabel: label });
      const labels = Array.from(entry.grid.table.querySelectorAll('th')).map((th) => th.textContent).join('|');
      const wanted = ['', ...Array.from({ length: cols }, (_, c) => colLabel(c)), ...chars.map((_, i) => label(i))].join('|');
      if (entry.grid.rows !== L || entry.grid.cols !== cols || labels !== wanted.slice(1)) entry.grid.resize(L, cols);
    }
    this.validate();
  }

  validate() {
    const alphabet = Array.from(this.problem.alphabet);
    const chars = this.letters();
    let problem = '';
    if (chars.length === 0) problem = 'Type a string of at least one letter.';
    else if (chars.some((ch) => !alphabet.includes(ch))) problem = `Use only letters of "${this.problem.alphabet}".`;
    else if (this.problem.W_P && chars.length > this.problem.W_P[0].length) problem = `At most ${this.problem.W_P[0].length} letters: W_P has a column per position.`;
    this.inputError.textContent = problem;
    this.input.setAttribute('aria-invalid', problem ? 'true' : 'false');
    let bad = 0;
    let given = 0;
    for (const { grid } of this.grids.values()) {
      if (grid.isBlank()) {
        grid.table.querySelectorAll('input').forEach((i) => i.classList.remove('invalid'));
        continue;
      }
      given += 1;
      bad += grid.markInvalid();
    }
    const weights = this.weights();
    let message = '';
    if (!weights.ok) message = 'Fill in your matrices above first.';
    else if (bad > 0) message = `${bad} ${bad === 1 ? 'entry is' : 'entries are'} empty or not a number (outlined); fill in the whole table or leave it all empty.`;
    else if (given === 0) message = 'Type at least one step.';
    this.button.disabled = Boolean(problem || message);
    if (message || problem) this.status.textContent = message;
    return !this.button.disabled;
  }

  body(weights) {
    const steps = [];
    for (const [name] of STEPS) {
      const { grid } = this.grids.get(name);
      if (!grid.isBlank()) steps.push(`"${name}": ${matrixText(grid.values())}`);
    }
    return `{${weights.parts.join(', ')}, "input": ${JSON.stringify(this.input.value)}, "steps": {${steps.join(', ')}}${this.reveal.checked ? ', "reveal": true' : ''}}`;
  }

  async check() {
    if (!this.validate()) return;
    const weights = this.weights();
    this.button.disabled = true;
    this.status.textContent = 'Checking…';
    const { status, body } = await checkSteps(this.problem.id, this.body(weights));
    this.button.disabled = false;
    for (const { status: line, revealBox, grid } of this.grids.values()) {
      line.textContent = '';
      revealBox.replaceChildren();
      grid.markWrong([]);
    }
    if (status !== 200) {
      const error = body && body.error ? body.error : { message: `the server answered ${status}`, field: null };
      if (error.field === 'input') this.inputError.textContent = error.message;
      else if (error.field && error.field !== 'steps' && error.field !== 'reveal') this.showWeightError(error);
      this.status.textContent = `Not checked: ${error.message}`;
      return;
    }
    const chars = this.letters();
    const label = (i) => `${chars[i]} at ${i + 1}`;
    for (const [name, step] of Object.entries(body.steps)) {
      const entry = this.grids.get(name);
      if (!entry) continue;
      entry.grid.markWrong(step.wrong_entries);
      const where = step.wrong_entries.map(([r, c]) => `row ${r}, column ${c}`).join('; ');
      entry.status.textContent = step.correct ? '✓ correct' : `✗ ${step.wrong_entries.length} wrong ${step.wrong_entries.length === 1 ? 'entry' : 'entries'}: ${where}`;
      entry.status.className = `step-status ${step.correct ? 'ok' : 'bad'}`;
      if (step.expected && !step.correct) {
        const square = step.expected[0].length === chars.length && ['scores', 'masked_scores', 'attention'].includes(name);
        entry.revealBox.append(resultTable({
          id: `revealed-${name}`,
          caption: `${name} from your earlier steps`,
          rows: step.expected,
          rowLabels: chars.map((_, i) => label(i)),
          colLabels: step.expected[0].map((_, c) => (square ? label(c) : `${c + 1}`)),
          masked: name === 'masked_scores' ? (r, c) => step.expected[r][c] === null : () => false,
          describe: (r, c, text) => `${name} should be, row ${r + 1}, column ${c + 1}: ${text}`,
        }));
      }
    }
    this.status.textContent = body.first_wrong
      ? `Your first slip is in ${body.first_wrong}; the steps after it are judged against your own ${body.first_wrong}.`
      : 'Every step you typed is right.';
  }
}

