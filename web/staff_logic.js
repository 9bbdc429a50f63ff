// What the staff's page decides without the DOM, so that node --test can pin it
// (tests/web/staff_logic.test.mjs): the id of a draft, the parts of a validate answer, the
// histogram's labels, whether a regrade may be offered, and the newest-answer rule of
// validate-as-you-type.

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

// The stats' score_histogram (10 counts of students, bins of 0.1, the last closed, API.md §8)
// as labelled bins.
export function histogramBins(counts) {
  return counts.map((count, k) => {
    const low = (k / 10).toFixed(1);
    const high = ((k + 1) / 10).toFixed(1);
    return {
      label: k === counts.length - 1 ? `${low} to ${high} (inclusive)` : `${low} to under ${high}`,
      count,
    };
  });
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
