// The staff key, kept for this tab only (sessionStorage, API.md §16): never in localStorage,
// a cookie, a URL or the page's HTML, so closing the tab forgets it. Storage that is refused
// (a locked-down browser) only means the key must be typed again on reload.

const keyName = 'headgrader:staff-key';

export function storedKey() {
  try {
    return sessionStorage.getItem(keyName) || null;
  } catch (denied) {
    return null;
  }
}

export function storeKey(key) {
  try {
    sessionStorage.setItem(keyName, key);
  } catch (denied) {
    // The page still works with the key it holds in memory.
  }
}

export function forgetKey() {
  try {
    sessionStorage.removeItem(keyName);
  } catch (denied) {
    // Nothing was kept.
  }
}
