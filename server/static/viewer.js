// The game viewer: keyboard replay (←/→ one ply, ↑/↓ ten, Home/End), the
// buttons and the move list step without reloading the page. Each board
// comes from the server (/games/{id}/board?ply=N: the same renderer as the
// page, with the node's comments and variations), the URL follows the ply,
// and an aria-live region announces moves. The line shown (a variation,
// `var=K`) and the move numbers (`numbers=1`) are kept: data-query.

const viewer = document.getElementById("viewer");
if (viewer) {
  const id = viewer.dataset.game;
  const plies = Number(viewer.dataset.plies);
  const query = viewer.dataset.query || "";
  const list = document.querySelector("ol.moves");
  const live = document.getElementById("announce");
  const cache = new Map();
  let shown = Number(document.querySelector("#board-panel svg").dataset.ply);
  let wanted = shown;

  const panelHtml = (ply) => {
    if (!cache.has(ply)) {
      cache.set(ply, fetch(`/games/${id}/board?${query}ply=${ply}`).then((r) => {
        if (!r.ok) { cache.delete(ply); throw new Error(`board ${ply}: ${r.status}`); }
        return r.text();
      }));
    }
    return cache.get(ply);
  };

  const markCurrent = (ply, scroll) => {
    for (const a of list.querySelectorAll("a[aria-current]")) a.removeAttribute("aria-current");
    const a = list.querySelector(`a[data-ply="${ply}"]`);
    if (!a) return;
    a.setAttribute("aria-current", "step");
    if (scroll) {
      // Scroll the list only, never the page.
      const top = a.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + a.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
  };

  const go = async (ply) => {
    ply = Math.max(0, Math.min(plies, ply));
    if (ply === wanted) return;
    wanted = ply;
    let html;
    try { html = await panelHtml(ply); } catch (e) { console.warn(e.message); return; }
    if (ply !== wanted) return;
    const doc = new DOMParser().parseFromString(html, "text/html");
    const panel = doc.getElementById("board-panel");
    document.getElementById("board-panel").replaceWith(document.importNode(panel, true));
    shown = ply;
    markCurrent(ply, true);
    history.replaceState(null, "", `?${query}ply=${ply}`);
    if (live) live.textContent = panel.dataset.announce || "";
    for (const next of [ply + 1, ply - 1]) if (next >= 0 && next <= plies) panelHtml(next);
  };

  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 10, ArrowUp: -10 };
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
    let to = null;
    if (e.key in step) to = wanted + step[e.key];
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = plies;
    if (to === null) return;
    e.preventDefault();
    go(to);
  });
  viewer.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-ply]");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    go(Number(a.dataset.ply));
  });
  markCurrent(shown, true);
  for (const next of [shown + 1, shown - 1]) if (next >= 0 && next <= plies) panelHtml(next);
}
