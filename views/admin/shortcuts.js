// Keyboard shortcuts of the console, served as a file of its own (the CSP allows no inline script).
// An element with `data-shortcut="a"` is clicked (a link or button) or focused (a text field) when
// its key is pressed; inside a list marked `data-shortcut-list`, j and k move between its item links.
// Nothing fires while the reviewer types in a field, or with a modifier key held.
(() => {
  const typing = (target) =>
    target instanceof Element && Boolean(target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]'));

  function moveInList(list, step) {
    const links = [...list.querySelectorAll('a.item-link')];
    if (links.length === 0) return false;
    const at = links.indexOf(document.activeElement);
    const next = at === -1 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, at + step));
    links[next].focus();
    links[next].closest('tr')?.scrollIntoView({ block: 'nearest' });
    return true;
  }

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing || typing(event.target)) return;
    const key = event.key;
    const list = document.querySelector('[data-shortcut-list]');
    if (list && (key === 'j' || key === 'k')) {
      if (moveInList(list, key === 'j' ? 1 : -1)) event.preventDefault();
      return;
    }
    const target = [...document.querySelectorAll('[data-shortcut]')].find((element) => element.getAttribute('data-shortcut') === key);
    if (!target) return;
    event.preventDefault();
    if (target.matches('textarea, input, select')) target.focus();
    else target.click();
  });
})();
