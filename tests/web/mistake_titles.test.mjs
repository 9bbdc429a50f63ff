// web/mistake_titles.js: plain titles for the named mistakes. Run by `node --test tests/web`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { mistakeTitle } from '../../web/mistake_titles.js';

describe('mistakeTitle', () => {
  it('gives every mistake of the library a title of its own, not its code', () => {
    // The library's names, read from its source so that a new mistake without a title fails.
    const source = readFileSync(new URL('../../grader/mistake_library.cc', import.meta.url), 'utf8');
    const library = source.slice(source.indexOf('kLibrary[]'));
    const names = Array.from(library.matchAll(/\{"([a-z_]+)",/g), (m) => m[1]);
    assert.ok(names.length >= 8, names.join(' '));
    const titles = names.map(mistakeTitle);
    for (const [k, name] of names.entries()) {
      assert.notEqual(titles[k].toLowerCase().replace(/ /g, '_'), name, name);
    }
    assert.equal(new Set(titles).size, titles.length);
    assert.equal(mistakeTitle('key_too_soft'), 'Your key is too soft');
  });

  it("puts a problem's own mistake names into words", () => {
    assert.equal(mistakeTitle('reads_current_letter'), 'Reads current letter');
    assert.equal(mistakeTitle('off-by-one'), 'Off by one');
    assert.equal(mistakeTitle(''), 'A mistake');
  });
});
