// The pattern editor without page reloads: a click on a point of the board
// fetches the page the point links to (the pattern with that point cycled)
// and swaps in its board, notes and form, keeping the form's other choices
// (mode, symmetry, colours, filters) as typed. Without this module every
// point is a plain link and the page reloads.

const KEEP = ["mode", "symmetry", "colors", "player", "from", "to"];

document.addEventListener("click", async (e) => {
  const a = e.target.closest && e.target.closest("#pattern-board a");
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  const href = a.getAttribute("href") || "";
  if (!href.includes("edit=1")) return;
  e.preventDefault();
  const url = new URL(href, location.href);
  const form = document.getElementById("pattern-query");
  if (form) {
    for (const name of KEEP) {
      const field = form.elements.namedItem(name);
      if (field && "value" in field) url.searchParams.set(name, field.value);
    }
  }
  const links = [...document.querySelectorAll("#pattern-board a")];
  const index = links.indexOf(a);
  let r;
  try {
    r = await fetch(url, { headers: { Accept: "text/html" } });
  } catch {
    location.href = url;
    return;
  }
  if (!r.ok && r.status !== 400) {
    location.href = url;
    return;
  }
  const doc = new DOMParser().parseFromString(await r.text(), "text/html");
  for (const id of ["pattern-board", "pattern-notes", "pattern-query", "pattern-error"]) {
    const now = document.getElementById(id);
    const next = doc.getElementById(id);
    if (now && next) now.replaceWith(document.importNode(next, true));
  }
  history.replaceState(null, "", url.pathname + url.search);
  // Keyboard users stay on the point they cycled.
  document.querySelectorAll("#pattern-board a")[index]?.focus();
});
