// A cue above every table box wider than the screen ("Scroll sideways …"): on a phone the
// output columns are off to the right, and nothing else says there is more to see.

const CUE_TEXT = 'Wider than the screen: scroll sideways to see every column →';

// Adds the cue before each overflowing .scroll box under `root` and removes it where it is not
// (any more) needed; a nested box is judged by its outermost scroller.
export function refreshScrollCues(root = document) {
  for (const box of root.querySelectorAll('.scroll')) {
    if (box.parentElement && box.parentElement.closest('.scroll')) continue;
    const wide = box.scrollWidth > box.clientWidth + 1;
    const cue = box.previousElementSibling;
    const has = cue && cue.classList.contains('scroll-cue');
    if (wide && !has) {
      const note = document.createElement('p');
      note.className = 'scroll-cue';
      note.textContent = CUE_TEXT;
      box.before(note);
    } else if (!wide && has) {
      cue.remove();
    }
  }
}

// Keeps the cues right as the window changes size (a phone turned, a zoom), at most once a
// frame.
export function watchScrollCues() {
  let pending = false;
  window.addEventListener('resize', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      refreshScrollCues();
    });
  });
}
