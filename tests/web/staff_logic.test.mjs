// The staff page's decisions without the DOM (web/staff_logic.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  INTEGRITY_KINDS, Newest, changeText, debounce, draftId, fileNameOf, hasDryRun, hasStudentsCsv,
  histogramBins, isDryRunAnswer, percent, sharedGroupText, splitCaret, validationParts,
} from '../../web/staff_logic.js';

test('a draft is saved under its own id, and a draft without one says why', () => {
  assert.deepEqual(draftId('{"id": "my-problem", "title": "x"}'), { id: 'my-problem' });
  assert.match(draftId('{"id": "My Problem"}').error, /lowercase/);
  assert.match(draftId('{"id": ').error, /not JSON/);
  assert.match(draftId('[1]').error, /one JSON object/);
});

test('a validate answer splits into defects, obstacles, warnings and mistakes caught', () => {
  const parts = validationParts({
    valid: false,
    defects: [{ field: 'expected', message: 'm' },
      { field: 'expected', message: 'o', kind: 'position_one', input: 'b', position: 1 }],
  });
  assert.equal(parts.defects.length, 1);
  assert.equal(parts.obstacles[0].kind, 'position_one');
  assert.equal(parts.summary, 'Not valid: 1 defect and 1 obstacle.');
  const valid = validationParts({ valid: true, tested_strings: 510, warnings: [{ field: 'strings', message: 'w' }], mistakes_caught: [{ mistake: 'value_wrong', caught: true, by: 'b' }] });
  assert.equal(valid.summary, 'Valid: 510 tested strings, 1 warning.');
  assert.equal(valid.caught.length, 1);
});

test('the caret of expected is kept with the line it points into', () => {
  const message = 'expected: a ")" is missing\n  any(consonant ? [0, 1] : [1, 0]\n                                 ^';
  const { text, excerpt } = splitCaret(message);
  assert.equal(text, 'expected: a ")" is missing');
  assert.equal(excerpt.split('\n')[1].trim(), '^');
  assert.equal(excerpt.split('\n')[1].indexOf('^'), 33);
  assert.deepEqual(splitCaret('no caret here'), { text: 'no caret here', excerpt: '' });
});

test('the histogram has ten bins labelled in percent, as a student\'s score is written', () => {
  const bins = histogramBins([1, 0, 0, 0, 0, 0, 0, 0, 2, 3]);
  assert.equal(bins.length, 10);
  assert.deepEqual(bins[0], { label: '0–10 %', count: 1 });
  assert.deepEqual(bins[8], { label: '80–90 %', count: 2 });
  assert.deepEqual(bins[9], { label: '90–100 %', count: 3 });
  assert.deepEqual(bins.map((b) => b.label.split('–')[0]), ['0', '10', '20', '30', '40', '50', '60', '70', '80', '90']);
});

test('a rate is a percent with one decimal, and none is a dash', () => {
  assert.equal(percent(2 / 3), '66.7 %');
  assert.equal(percent(0), '0 %');
  assert.equal(percent(1), '100 %');
  assert.equal(percent(null), '–');
});

test('each kind of integrity finding is explained in one line, and a group is a sentence', () => {
  assert.deepEqual(Object.keys(INTEGRITY_KINDS).sort(), ['identical', 'other_variant', 'same_after_relabeling']);
  for (const text of Object.values(INTEGRITY_KINDS)) assert.ok(!text.includes('\n'));
  assert.equal(sharedGroupText({ kind: 'identical', students: ['ann', 'bob'], submission_ids: ['1', '2'], matches_reference: false }),
    '2 students sent the same matrices: ann, bob.');
  assert.equal(sharedGroupText({ kind: 'same_after_relabeling', students: ['a', 'b', 'c'], submission_ids: ['1', '2', '3'], matches_reference: true }),
    '3 students sent the same head after relabeling (it is the reference\'s head): a, b, c.');
});

test('a regrade\'s change reads before → after', () => {
  assert.equal(changeText({ before: { passed: false, score: 0.5 }, after: { passed: true, score: 1 } }),
    'failed 0.50 → passed 1.00');
});

test('the per-student CSV is offered only by a server whose openapi lists it', () => {
  assert.equal(hasStudentsCsv({ paths: { '/v1/students.csv': { get: {} } } }), true);
  assert.equal(hasStudentsCsv({ paths: { '/v1/submissions.csv': { get: {} } } }), false);
  assert.equal(hasStudentsCsv(null), false);
});

test('a regrade is offered only by a server that documents dry runs and answered one', () => {
  const doc = (parameters) => ({ paths: { '/v1/problems/{id}/regrade': { post: { parameters } } } });
  assert.equal(hasDryRun(doc([{ name: 'dry_run', in: 'query' }])), true);
  assert.equal(hasDryRun(doc([{ $ref: '#/components/parameters/dry_run' }])), true);
  assert.equal(hasDryRun(doc(undefined)), false);
  assert.equal(hasDryRun({}), false);
  assert.equal(isDryRunAnswer(200, { dry_run: true, regraded: 2, changed: [] }), true);
  // A server that ignored the parameter answers a real regrade: never taken for a dry run.
  assert.equal(isDryRunAnswer(200, { regraded: 2, changed: [] }), false);
  assert.equal(isDryRunAnswer(200, { dry_run: 'true' }), false);
  assert.equal(isDryRunAnswer(400, { dry_run: true }), false);
});

test('only the newest answer is shown, whatever order answers come back in', () => {
  const newest = new Newest();
  const first = newest.ticket();
  const second = newest.ticket();
  assert.equal(newest.isNewest(first), false);
  assert.equal(newest.isNewest(second), true);
});

test('typing calls the work once, after the pause', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const calls = [];
  const soon = debounce((x) => calls.push(x), 250, globalThis);
  soon(1);
  t.mock.timers.tick(100);
  soon(2);
  t.mock.timers.tick(249);
  assert.deepEqual(calls, []);
  t.mock.timers.tick(1);
  assert.deepEqual(calls, [2]);
});

test('a CSV download takes the server\'s file name when it gives one', () => {
  assert.equal(fileNameOf('attachment; filename="students.csv"', 'x.csv'), 'students.csv');
  assert.equal(fileNameOf(null, 'x.csv'), 'x.csv');
});
