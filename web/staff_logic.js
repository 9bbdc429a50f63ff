// What the staff's page decides without the DOM, so that node --test can pin it
// (tests/web/staff_logic.test.mjs): the id of a draft, the parts of a validate answer, the
// histogram's labels, whether a regrade may be offered, and the newest-answer rule of
// validate-as-you-type; the class view's labels and texts (staff_class.js).

// The id a draft will be saved under (PUT /v1/problems/{id}): {id} or {error}.
export function draftId(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (broken) {
    return { error: 'the file is not JSON yet; the validation below says where' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { error: 'a problem file is one JSON object' };
  }
  if (typeof parsed.id !== 'string' || !/^[a-z0-9-]{1,64}$/.test(parsed.id)) {
    return { error: 'the file needs an "id" of lowercase letters, digits and "-"' };
  }
  return { id: parsed.id };
}

// A validate answer (POST /v1/problems/validate) split as the editor shows it: the defects of
// the file, the obstacles that prove it unsolvable (defects with a kind, API.md §14), the
// warnings (lint), the named mistakes its tests catch, and a one-line summary.
export function validationParts(answer) {
  const defects = (answer.defects || []).filter((d) => !d.kind);
  const obstacles = (answer.defects || []).filter((d) => d.kind);
  const warnings = answer.warnings || [];
  const caught = answer.mistakes_caught || [];
  let summary;
  if (answer.valid) {
    summary = `Valid: ${answer.tested_strings} tested strings`
      + `${warnings.length ? `, ${warnings.length} ${plural(warnings.length, 'warning')}` : ''}.`;
  } else {
    const parts = [];
    if (defects.length) parts.push(`${defects.length} ${plural(defects.length, 'defect')}`);
    if (obstacles.length) parts.push(`${obstacles.length} ${plural(obstacles.length, 'obstacle')}`);
    summary = `Not valid: ${parts.join(' and ')}.`;
  }
  return { defects, obstacles, warnings, caught, summary };
}

export function plural(n, word) {
  return n === 1 ? word : `${word}s`;
}

// A defect's message split at its caret lines (the parser of `expected` ends a message with
// the expression and a line holding "^" under the place it names, API.md §3): {text, excerpt},
// excerpt '' when there is none.
export function splitCaret(message) {
  const lines = message.split('\n');
  const caret = lines.findIndex((line) => /^\s*\^\s*$/.test(line));
  if (caret < 1) return { text: message, excerpt: '' };
  return {
    text: lines.slice(0, caret - 1).join('\n'),
    excerpt: `${lines[caret - 1]}\n${lines[caret]}`,
  };
}

// The stats' score_histogram (10 counts of students by the score of their latest grading,
// bins of 0.1, the last closed, API.md §8) as labelled bins: "0–10 %" … "90–100 %". The
// labels say percent because a score of 0.85 is what a student's page calls 85 %.
export function histogramBins(counts) {
  return counts.map((count, k) => ({ label: `${k * 10}–${(k + 1) * 10} %`, count }));
}

// A rate in [0, 1] (or null when nobody has tried) as the page writes it.
export function percent(rate) {
  return typeof rate === 'number' ? `${Math.round(rate * 1000) / 10} %` : '–';
}

// What each kind of integrity finding means (API.md §15), in one line each.
export const INTEGRITY_KINDS = {
  identical: 'Identical: these students sent the same matrices, number for number.',
  same_after_relabeling: 'Same after relabeling: the same head once each student\'s variant is '
    + 'undone and the scale of W_q and W_k that leaves the scores unchanged is factored out.',
  other_variant: 'Another variant\'s head: a failing head that is, exactly, the head another '
    + 'student sent for their own variant.',
};

// One group of students who sent the same head, as a sentence.
export function sharedGroupText(group) {
  const kind = group.kind === 'identical' ? 'the same matrices'
    : 'the same head after relabeling';
  return `${group.students.length} students sent ${kind}`
    + `${group.matches_reference ? ' (it is the reference\'s head)' : ''}: `
    + `${group.students.join(', ')}.`;
}

// A regrade's change (API.md §8: before and after, each {passed, score}) as "before → after".
export function changeText(change) {
  const side = (g) => `${g.passed ? 'passed' : 'failed'} ${g.score.toFixed(2)}`;
  return `${side(change.before)} → ${side(change.after)}`;
}

// Whether the server documents `?dry_run=` on the regrade route (its own docs/openapi.json):
// a server without dry runs would ignore the parameter and regrade for real, so the page
// never sends one to it.
export function hasDryRun(openapi) {
  const route = openapi && openapi.paths && openapi.paths['/v1/problems/{id}/regrade'];
  const parameters = (route && route.post && route.post.parameters) || [];
  return parameters.some((p) => p && (p.name === 'dry_run'
    || (typeof p.$ref === 'string' && p.$ref.endsWith('/dry_run'))));
}

// Whether the server has the per-student CSV (GET /v1/students.csv, API.md §16).
export function hasStudentsCsv(openapi) {
  const route = openapi && openapi.paths && openapi.paths['/v1/students.csv'];
  return Boolean(route && route.get);
}

// The real regrade is offered only after an answer that says it was a dry run.
export const isDryRunAnswer = (status, body) =>
  status === 200 && body !== null && typeof body === 'object' && body.dry_run === true;

// Validate-as-you-type: each request gets a ticket; only the newest ticket's answer is shown,
// whatever order the answers come back in.
export class Newest {
  constructor() {
    this.issued = 0;
  }

  ticket() {
    this.issued += 1;
    return this.issued;
  }

  isNewest(ticket) {
    return ticket === this.issued;
  }
}

// Calls `work` once `ms` after the last call of the returned function (typing pauses).
export function debounce(work, ms, timers = globalThis) {
  let pending = null;
  return (...args) => {
    if (pending !== null) timers.clearTimeout(pending);
    pending = timers.setTimeout(() => {
      pending = null;
      work(...args);
    }, ms);
  };
}

// The file name of a CSV download: the server's Content-Disposition when it names one, else
// `fallback`.
export function fileNameOf(disposition, fallback) {
  const m = /filename="?([^";]+)"?/i.exec(disposition || '');
  return m ? m[1] : fallback;
}
