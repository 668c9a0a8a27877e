// The folded sections of a page (<details class="fold">, issue 49, item 6): a link to something inside
// a closed one (a footnote, "what the statuses mean") opens it, so the link lands on what it names.
// Without JavaScript the sections still open by a tap on their heading.
function openTo(hash) {
  if (!hash || hash.length < 2) return;
  const target = document.getElementById(decodeURIComponent(hash.slice(1)));
  for (let el = target; el; el = el.parentElement) if (el.tagName === 'DETAILS') el.open = true;
}
document.addEventListener('click', (e) => {
  const a = e.target instanceof Element ? e.target.closest('a[href^="#"]') : null;
  if (a) openTo(a.getAttribute('href'));
});
window.addEventListener('hashchange', () => openTo(location.hash));
openTo(location.hash);
