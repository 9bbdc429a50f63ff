// Check my steps (the handout's Part C; API.md §10): the student types the matrices they
// computed by hand for their own weights and a string of their own, and the server says
// which step first went wrong and which entries, judging each step against the student's own
// earlier ones. Correct values are shown only when the student asks for them.

import { checkSteps } from './api.js';
import { element } from './dom.js';
import { EditableGrid, resultTable } from './grid.js';
import {
  STEPS, checkSummary, columnLabel, columnsOf, inputProblem, isSquare, letterLabel, readiness,
  stepVerdict, stepsBody, suggestedInput,
} from './step_logic.js';

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
    this.input = element('input', {
      type: 'text',
      id: 'steps-input',
      autocomplete: 'off',
      spellcheck: 'false',
      value: suggestedInput(problem),
      'aria-describedby': 'steps-input-help steps-input-error',
    });
    this.input.addEventListener('input', () => this.layout());
    this.inputError = element('p', { class: 'error', id: 'steps-input-error', role: 'alert' });
    this.root.append(
      element('p', {
        class: 'help',
        text: 'Pick a short string, compute each step by hand for your own matrices above, and '
          + 'type the ones you want checked (leave a whole table empty to skip it). Each step is '
          + 'judged from your own earlier steps, so one slip is marked once. A number counts as '
          + 'right within 0.001, or when it is the right value rounded to the decimals you typed '
          + '(0.3 for 0.3326, 0 for 0.0034). Where the mask hides a key, the attention is 0 '
          + 'already filled in.',
      }),
      element('label', { for: 'steps-input', text: 'Your string' }), ' ', this.input,
      element('p', {
        class: 'help',
        id: 'steps-input-help',
        text: `Letters of "${problem.alphabet}"`
          + `${problem.W_P ? `, at most ${problem.W_P[0].length}` : ''}.`,
      }),
      this.inputError,
    );
    this.gridBox = element('div', { class: 'steps-grids' });
    this.root.append(this.gridBox);
    this.reveal = element('input', { type: 'checkbox', id: 'steps-reveal' });
    this.button = element('button', {
      type: 'button', id: 'check-steps', class: 'primary', text: 'Check my steps',
    });
    this.button.addEventListener('click', () => this.check());
    this.status = element('p', { id: 'steps-status', role: 'status' });
    this.root.append(
      element('p', {}, this.reveal, ' ', element('label', {
        for: 'steps-reveal', text: 'Show the correct value of each wrong entry',
      })),
      this.button, this.status);
    this.grids.clear();
    this.layout();
  }

  // No problem shown: the panel is empty until one is.
  clear() {
    this.problem = null;
    this.grids.clear();
    this.root.replaceChildren();
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
    const label = (i) => letterLabel(chars, i);
    const causal = this.problem.causal !== false;
    for (const [name, title] of STEPS) {
      const square = isSquare(name);
      const cols = columnsOf(name, L, nq, nv);
      const colLabel = (c) => columnLabel(name, chars, c);
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
          // The mask's cells are fixed: "–" in the masked scores, 0 in the attention (sent as
          // null, which the server takes as either).
          fixed: (name === 'masked_scores' || name === 'attention') && causal
            ? (r, c) => c > r
            : null,
          fixedText: name === 'attention' ? '0' : '–',
          describeCell: (r, c) => (square
            ? `${name}, query ${label(r)}, key ${label(c)}`
            : `${name}, ${label(r)}, ${colLabel(c)}`),
          onChange: () => this.validate(),
        });
        const figure = element('fieldset', { class: 'step', id: `step-${name}` },
          element('legend', { text: title }),
          element('div', { class: 'scroll' }, grid.table), status, revealBox);
        entry = { grid, status, revealBox, figure };
        this.grids.set(name, entry);
        this.gridBox.append(figure);
      }
      Object.assign(entry.grid, { colLabel, rowLabel: label });
      const labels = Array.from(entry.grid.table.querySelectorAll('th'))
        .map((th) => th.textContent).join('|');
      const wanted = ['', ...Array.from({ length: cols }, (_, c) => colLabel(c)),
        ...chars.map((_, i) => label(i))].join('|');
      if (entry.grid.rows !== L || entry.grid.cols !== cols || labels !== wanted.slice(1)) {
        entry.grid.resize(L, cols);
      }
    }
    this.validate();
  }

  validate() {
    const problem = inputProblem(this.problem, this.letters());
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
      bad += grid.markInvalid().bad;
    }
    const message = readiness({ weightsOk: this.weights().ok, bad, given });
    this.button.disabled = Boolean(problem || message);
    // Why the button is disabled, while it is; a reason that no longer holds goes (the last
    // check's summary stays).
    if (message || problem) this.status.textContent = message;
    else if (this.status.textContent === this.reason) this.status.textContent = '';
    this.reason = message;
    return !this.button.disabled;
  }

  body(weights) {
    const steps = [];
    for (const [name] of STEPS) {
      const { grid } = this.grids.get(name);
      if (!grid.isBlank()) steps.push([name, grid.values()]);
    }
    return stepsBody({
      weightParts: weights.parts, input: this.input.value, steps, reveal: this.reveal.checked,
    });
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
      const error = body && body.error
        ? body.error
        : { message: `the server answered ${status}`, field: null };
      if (error.field === 'input') this.inputError.textContent = error.message;
      else if (error.field && error.field !== 'steps' && error.field !== 'reveal') {
        this.showWeightError(error);
      }
      this.status.textContent = `Not checked: ${error.message}`;
      return;
    }
    const chars = this.letters();
    const label = (i) => letterLabel(chars, i);
    for (const [name, step] of Object.entries(body.steps)) {
      const entry = this.grids.get(name);
      if (!entry) continue;
      entry.grid.markWrong(step.wrong_entries);
      entry.status.textContent = stepVerdict(step);
      entry.status.className = `step-status ${step.correct ? 'ok' : 'bad'}`;
      if (step.expected && !step.correct) {
        const square = step.expected[0].length === chars.length && isSquare(name);
        entry.revealBox.append(resultTable({
          id: `revealed-${name}`,
          caption: `${name} from your earlier steps`,
          rows: step.expected,
          rowLabels: chars.map((_, i) => label(i)),
          colLabels: step.expected[0].map((_, c) => (square ? label(c) : `${c + 1}`)),
          masked: name === 'masked_scores'
            ? (r, c) => step.expected[r][c] === null
            : () => false,
          describe: (r, c, text) =>
            `${name} should be, row ${r + 1}, column ${c + 1}: ${text}`,
        }));
      }
    }
    this.status.textContent = checkSummary(body.first_wrong);
  }
}

